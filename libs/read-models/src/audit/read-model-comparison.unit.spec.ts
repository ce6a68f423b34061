import { evolveAll, initialSessionState, render, type SessionEvent } from '#domain';
import { indexRowOf } from '../session-index/index-row.builder.js';
import { summaryRowOf } from '../session-summary/summary-row.builder.js';
import { compareReadModels, type StoredReadModels } from './read-model-comparison.js';

const events: SessionEvent[] = [
  { type: 'SessionStarted', data: { sessionId: 's1', title: 'Plans', parentSessionId: null, createdAt: 100 } },
  { type: 'MessagesRecorded', data: { rows: [{ role: 'user', content: 'hi', timestamp: 101 }] } },
  { type: 'MessagesRecorded', data: { rows: [{ role: 'assistant', content: 'hello', timestamp: 102 }] } },
];
const stateAt = (version: number) => evolveAll(initialSessionState(), events.slice(0, version));
const asStored = (value: unknown) => JSON.parse(JSON.stringify(value));

/** What an honest store holds: snapshot at 2, summary and index at the head, the view served at the head. */
const honest = (): StoredReadModels => ({
  snapshots: [{ version: 2, state: asStored(stateAt(2)) }],
  summary: { version: 3, data: asStored(summaryRowOf(stateAt(3), 3)) },
  index: indexRowOf(render(stateAt(3)), 3),
  indexCaughtUp: true,
  served: render(stateAt(3)),
});

describe('comparing stored read models with a replay', () => {
  it('finds no difference in an honest store, and equal hashes', () => {
    const result = compareReadModels(events, honest());
    expect(result.differences).toEqual([]);
    expect(result.storedHash).toBe(result.replayedHash);
  });

  it('compares an index row that trails the head with the replay at its own version', () => {
    const stored = { ...honest(), index: indexRowOf(render(stateAt(2)), 2), indexCaughtUp: false };
    expect(compareReadModels(events, stored).differences).toEqual([]);
  });

  it('reports a trailing index row once the projector has passed the head', () => {
    const stored = { ...honest(), index: indexRowOf(render(stateAt(2)), 2) };
    expect(compareReadModels(events, stored).differences).toEqual([{ path: 'index.version', stored: 2, replayed: 3 }]);
  });

  it('ignores models written beyond the events it was given (a concurrent append)', () => {
    const stored = { ...honest(), snapshots: [{ version: 9, state: { forged: true } }] };
    expect(compareReadModels(events, stored).differences).toEqual([]);
  });

  it('reports a served view that says the session does not exist', () => {
    expect(compareReadModels(events, { ...honest(), served: null }).differences).toEqual([
      { path: 'view', stored: undefined, replayed: 'a view at version 3' },
    ]);
  });

  it('caps the differences it lists', () => {
    const state = asStored(stateAt(2));
    const forged = { ...state, committed: Array.from({ length: 80 }, (_, i) => ({ role: 'user', content: `x${i}`, timestamp: i })) };
    const result = compareReadModels(events, { ...honest(), snapshots: [{ version: 2, state: forged }] }, 10);
    expect(result.differences).toHaveLength(10);
    expect(result.differences[0].path).toMatch(/^snapshot@2\.committed\[0\]/);
  });
});
