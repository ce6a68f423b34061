import fc from 'fast-check';
import { canonicalJson, evolveAll, initialSessionState, projectSession, render, type SessionEvent, type SessionState } from '../index.js';
import { agentStoreHistoryArb, sessionHistoryArb } from '../testing/session-event.arbitrary.js';
import { journal, tokens } from '../testing/journal-events.builder.js';
import { interrupted, pendingTurn, settled, submitted, user, assistant } from '../testing/session.fixtures.js';
import { journalFromEvents, journalSpansOf, storedFormOf, withJournals, withJournalsFromEvents, withJournalsOf } from './stored-form.js';

const fold = (events: readonly SessionEvent[]): SessionState => evolveAll(initialSessionState(), events);

/** What a cold read does with a snapshot: its stored form through JSON, each live journal read back from its span. */
function coldRead(events: readonly SessionEvent[], version: number): SessionState {
  const stored = JSON.parse(JSON.stringify(storedFormOf(fold(events.slice(0, version))))) as SessionState;
  const spans = new Map(journalSpansOf(stored).map((span) => [span.runId, span]));
  const restored = withJournals(stored, (runId) => {
    const span = spans.get(runId)!;
    return journalFromEvents(runId, events.slice(span.from - 1, span.to));
  });
  // The same from the whole stream up to the snapshot, versions attached (what the store's read hands over).
  const fromStream = withJournalsFromEvents(stored, events.slice(0, version).map((event, index) => ({ ...event, version: index + 1 })));
  expect(canonicalJson(fromStream)).toBe(canonicalJson(restored));
  return restored;
}

describe('the stored form of a fold state (snapshots leave live journals in the stream)', () => {
  it('read back from the events, is the fold itself, at every version, and folds on to the same view', () => {
    fc.assert(
      fc.property(fc.oneof(sessionHistoryArb, agentStoreHistoryArb), (events) => {
        for (let version = 0; version <= events.length; version += 1) {
          const restored = coldRead(events, version);
          const folded = fold(events.slice(0, version));
          expect(canonicalJson(restored)).toBe(canonicalJson(folded));
          expect(canonicalJson(render(evolveAll(restored, events.slice(version))))).toBe(canonicalJson(projectSession(events)));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('holds no journal event of a pending or interrupted run, and keeps a settled run as the fold left it', () => {
    const events = [
      ...pendingTurn(),
      ...tokens('r1', 1, ['Hel', 'lo'], 1011),
      interrupted('r1', 1100),
      submitted('r2', 'again', 1200),
      ...tokens('r2', 1, ['fine'], 1201),
      settled('r2', [user('again', 1200), assistant('fine', 1202)], 1203),
      submitted('r3', 'more', 1300),
      ...tokens('r3', 1, ['stream', 'ing'], 1301),
      journal('r3', 9, 'token', { text: ' late' }, 1310),
    ];
    const state = fold(events);
    const stored = storedFormOf(state);
    expect(JSON.stringify(stored)).not.toContain('"Hel"');
    expect(JSON.stringify(stored)).not.toContain('"stream"');
    expect(journalSpansOf(stored).map((s) => s.runId).sort()).toEqual(['r1', 'r3']);
    // The settled run was archived by the fold already: its seqs stay, and nothing is read back for it.
    expect(JSON.stringify(stored)).toContain('"archivedSeqs"');
    expect(canonicalJson(withJournalsOf(stored, state))).toBe(canonicalJson(state));
    expect(canonicalJson(coldRead(events, events.length))).toBe(canonicalJson(state));
  });

  it('is the state itself when no journal is live', () => {
    const state = fold(pendingTurn());
    expect(storedFormOf(state)).toBe(state);
  });
});
