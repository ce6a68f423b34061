import { evolveAll, initialSessionState, type SessionEvent, storedFormOf, toSessionStreamId } from '#domain';
import { InMemoryEventStore } from '#event-store';
import { withStreamJournals } from './snapshot-store.js';

describe('a snapshot of a very long streamed turn, read back', () => {
  it('rebuilds a journal of 150,000 tokens (more events than one call may take as arguments)', async () => {
    const store = new InMemoryEventStore();
    const streamId = toSessionStreamId('long-turn');
    const events: SessionEvent[] = [
      { type: 'SessionStarted', data: { sessionId: 'long-turn', title: null, parentSessionId: null, createdAt: 1 } },
      { type: 'UserMessageSubmitted', data: { runId: 'r', text: 'go', attachments: [], source: null, submittedAt: 2 } },
    ];
    for (let seq = 1; seq <= 150_000; seq += 1) {
      events.push({ type: 'JournalEventRecorded', data: { runId: 'r', seq, event: 'token', payload: { text: 't' }, createdAt: 3 } });
    }
    for (let i = 0; i < events.length; i += 10_000) await store.append(streamId, events.slice(i, i + 10_000));
    const state = evolveAll(initialSessionState(), events);
    const restored = await withStreamJournals(store, streamId, storedFormOf(state));
    expect(JSON.stringify(restored)).toBe(JSON.stringify(state));
  });
});
