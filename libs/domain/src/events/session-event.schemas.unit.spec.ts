import { parseSessionEvent, safeParseSessionEvent } from './parse-session-event.js';
import { journalEventSchema, messageRowSchema, stateRowSchema } from './row.schemas.js';
import { sessionEventSchemas } from './session-event.schemas.js';
import { SESSION_EVENT_TYPES, type SessionEvent } from './session.events.js';
import { DomainError } from '../errors/domain.error.js';

const valid: SessionEvent[] = [
  { type: 'SessionStarted', data: { sessionId: 's-1', title: 'T', parentSessionId: null, createdAt: 1 } },
  { type: 'MessagesRecorded', data: { rows: [{ role: 'user', content: 'hi', timestamp: 1.5 }] } },
  { type: 'UserMessageSubmitted', data: { runId: 'r1', text: 'q', attachments: [], source: null, submittedAt: 2 } },
  { type: 'TurnSettled', data: { runId: 'r1', rows: [{ role: 'assistant', content: 'a' }], settledAt: 3 } },
  { type: 'JournalEventRecorded', data: { runId: 'r1', seq: 1, event: 'token', payload: { text: 'a' }, createdAt: 3 } },
  { type: 'StateRowsObserved', data: { rows: [{ role: 'user', content: 'q', rowId: 0, active: true }], observedAt: 4 } },
  { type: 'TranscriptTruncated', data: { keepCount: 0, reason: 'clear', at: 5 } },
  { type: 'SessionCompressed', data: { childSessionId: 's-2', at: 6 } },
  { type: 'TurnInterrupted', data: { runId: null, cause: 'unknown', detectedAt: 7, evidence: {} } },
  { type: 'TurnRecoveredFromAgentStore', data: { runId: 'r1', detectedAt: 8, evidence: {} } },
  { type: 'JournalRecoveryAbandoned', data: { runId: 'r1', at: 9, reason: 'gave up' } },
];

const pathsOf = (input: unknown): string[] => {
  const result = safeParseSessionEvent(input);
  return result.ok ? [] : result.errors.map((error) => error.path);
};

describe('the event catalogue', () => {
  it('has one data schema per event type', () => {
    expect(Object.keys(sessionEventSchemas).sort()).toEqual([...SESSION_EVENT_TYPES].sort());
  });

  it.each(valid.map((event) => [event.type, event] as const))('accepts a well-formed %s', (_type, event) => {
    expect(parseSessionEvent(event)).toEqual(event);
  });

  it('fills the stored defaults of optional request fields', () => {
    expect(parseSessionEvent({ type: 'UserMessageSubmitted', data: { runId: 'r', text: 't', submittedAt: 1 } })).toEqual({
      type: 'UserMessageSubmitted',
      data: { runId: 'r', text: 't', attachments: [], source: null, submittedAt: 1 },
    });
    expect(stateRowSchema.parse({ role: 'tool', rowId: 3 })).toEqual({ role: 'tool', rowId: 3, active: true });
  });

  it('names every bad field with its path', () => {
    expect(
      pathsOf({ type: 'TurnSettled', data: { runId: 'bad id!', rows: [{ role: 'robot' }, { role: 'user', timestamp: 'x' }] } }),
    ).toEqual(['data.runId', 'data.rows.0.role', 'data.rows.1.timestamp', 'data.settledAt']);
  });

  it('rejects an unknown event type', () => {
    expect(pathsOf({ type: 'SomethingHappened', data: {} })).toEqual(['type']);
  });

  it('throws a VALIDATION domain error from parseSessionEvent', () => {
    expect(() => parseSessionEvent({ type: 'TranscriptTruncated', data: { keepCount: -1, reason: 'oops', at: 1 } })).toThrow(
      expect.objectContaining({ code: 'VALIDATION', errors: expect.arrayContaining([expect.objectContaining({ path: 'data.keepCount' })]) }),
    );
    expect(() => parseSessionEvent(null)).toThrow(DomainError);
  });

  it('rejects non-finite times', () => {
    expect(pathsOf({ type: 'SessionCompressed', data: { childSessionId: 'c', at: Infinity } })).toEqual(['data.at']);
  });
});

describe('row schemas', () => {
  it('accept text, image and other content parts', () => {
    const content = [{ type: 'text', text: 'a' }, { type: 'image_url', imageUrl: { url: 'u' } }, { type: 'input_audio', data: 'x' }];
    expect(messageRowSchema.parse({ role: 'user', content }).content).toEqual(content);
  });

  it('reject malformed content parts with their paths', () => {
    const result = messageRowSchema.safeParse({ role: 'user', content: [{ type: 'text' }, { type: 'image_url', imageUrl: {} }] });
    expect(result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'))).toEqual([
      'content.0.text',
      'content.1.imageUrl.url',
    ]);
  });

  it('strip fields the contract does not know', () => {
    expect(messageRowSchema.parse({ role: 'user', content: 'x', _private: 1 })).toEqual({ role: 'user', content: 'x' });
  });

  it('require a non-negative integer rowId on state rows', () => {
    expect(stateRowSchema.safeParse({ role: 'user', rowId: -1 }).success).toBe(false);
    expect(stateRowSchema.safeParse({ role: 'user', rowId: 1.5 }).success).toBe(false);
    expect(stateRowSchema.safeParse({ role: 'user' }).success).toBe(false);
  });

  it('require journal seqs from 1', () => {
    expect(journalEventSchema.safeParse({ seq: 0, event: 'token', payload: {}, createdAt: 1 }).success).toBe(false);
    expect(journalEventSchema.safeParse({ seq: 1, event: 'token', payload: [], createdAt: 1 }).success).toBe(false);
  });
});
