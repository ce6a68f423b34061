import { EVENT_SCHEMA_VERSIONS, schemaStampOf, storedSchemaOf, UnknownSchemaVersionError, upcastEventData } from './event-schema.upcasters.js';
import { SESSION_EVENT_TYPES } from './session.events.js';

describe('event schema upcasters', () => {
  it('knows a current version for every event type', () => {
    expect(Object.keys(EVENT_SCHEMA_VERSIONS).sort()).toEqual([...SESSION_EVENT_TYPES].sort());
  });

  it('leaves an event at the current version untouched (the same object)', () => {
    const data = { runId: 'r1', detectedAt: 5, evidence: { now: 5 } };
    expect(upcastEventData('TurnRecoveredFromAgentStore', 2, data)).toBe(data);
    const started = { sessionId: 's', title: null, parentSessionId: null, createdAt: 1 };
    expect(upcastEventData('SessionStarted', 1, started)).toBe(started);
  });

  it('gives a schema-1 TurnRecoveredFromAgentStore written without evidence an empty one, and keeps one it had', () => {
    expect(upcastEventData('TurnRecoveredFromAgentStore', 1, { runId: 'r1', detectedAt: 5 })).toEqual({ runId: 'r1', detectedAt: 5, evidence: {} });
    expect(upcastEventData('TurnRecoveredFromAgentStore', 1, { runId: 'r1', detectedAt: 5, evidence: { a: 1 } })).toEqual({
      runId: 'r1',
      detectedAt: 5,
      evidence: { a: 1 },
    });
  });

  it('refuses an event written by a newer version than it knows', () => {
    expect(() => upcastEventData('SessionStarted', 2, {})).toThrow(UnknownSchemaVersionError);
  });

  it('stamps only types past version 1, and reads an absent or odd stamp as 1', () => {
    expect(schemaStampOf('TurnRecoveredFromAgentStore')).toEqual({ schema: 2 });
    expect(schemaStampOf('JournalEventRecorded')).toEqual({});
    expect(storedSchemaOf({})).toBe(1);
    expect(storedSchemaOf({ schema: 2 })).toBe(2);
    expect(storedSchemaOf({ schema: 'x' })).toBe(1);
    expect(storedSchemaOf(null)).toBe(1);
  });
});
