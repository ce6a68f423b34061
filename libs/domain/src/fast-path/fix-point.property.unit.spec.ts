import fc from 'fast-check';
import { canonicalJson } from '../canonical/canonical-json.js';
import type { SessionEvent } from '../events/session.events.js';
import { fastFixPoint } from './fix-point.fast.js';
import { agentStoreHistoryArb, sessionHistoryArb } from '../testing/session-event.arbitrary.js';
import { evolve, evolveAll } from '../session/session.evolve.js';
import { projectSession, render } from '../session/session.render.js';
import { initialSessionState, type SessionState } from '../session-state/session.state.js';
import { assistant, observed, recorded, settled, started, stateRow, submitted, truncated, user } from '../testing/session.fixtures.js';

/**
 * A commit may skip the full merge to its fix point only when it proves the result (fix-point.ts). Reference: the same
 * fold with `alwaysMerge`, which runs the full merge at every commit. Both must give the same state after every
 * event and so the same views.
 */
const COMMITS = new Set(['TurnSettled', 'TurnInterrupted', 'TurnRecoveredFromAgentStore']);

interface Tally {
  commits: number;
  proven: number;
}

/** Folds event by event both ways, failing at the first event after which the states differ. */
function foldBothWays(events: readonly SessionEvent[], tally: Tally): void {
  let fast = initialSessionState();
  let full = initialSessionState();
  events.forEach((event, index) => {
    if (COMMITS.has(event.type)) {
      tally.commits += 1;
      if (fastFixPoint(fast) !== null) tally.proven += 1;
    }
    fast = evolve(fast, event);
    full = evolveAll(full, [event], { alwaysMerge: true });
    if (canonicalJson(fast) !== canonicalJson(full)) {
      throw new Error(`states differ after event ${index} (${event.type})`);
    }
  });
  expect(canonicalJson(render(fast))).toBe(canonicalJson(render(full)));
  expect(canonicalJson(projectSession(events))).toBe(canonicalJson(render(full)));
}

describe('a commit that skips its merge', () => {
  it.each([
    ['any history', sessionHistoryArb, 1],
    ['agent-store histories (copies, provider bytes, compaction, gateway rows)', agentStoreHistoryArb, 2],
  ])('gives exactly the state and views of always merging, over 5,000 %s', (_name, arbitrary, seed) => {
    const tally: Tally = { commits: 0, proven: 0 };
    fc.assert(
      fc.property(arbitrary, (events) => foldBothWays(events, tally)),
      { numRuns: 5000, seed },
    );
    // The fast path must actually be taken, or the comparison proves nothing.
    expect(tally.proven).toBeGreaterThan(tally.commits / 10);
  });

  it('runs the full merge after a clear, which lets an agent row past the old range come back (the two known cases)', () => {
    const events: SessionEvent[] = [
      started(),
      submitted('r1', 'q', 1010),
      settled('r1', [user('q', 1010), assistant('a', 1012)], 1013),
      observed([stateRow(1, user('late', 1050.5))], 1051),
      truncated(2, 'clear', 1060),
      submitted('r2', 'q2', 1070),
      settled('r2', [user('q2', 1070), assistant('a2', 1072)], 1073),
    ];
    const reference = render(evolveAll(initialSessionState(), events, { alwaysMerge: true }));
    expect(reference.display.map((row) => row.content)).toEqual(['q', 'a', 'late', 'q2', 'a2']);
    expect(canonicalJson(projectSession(events))).toBe(canonicalJson(reference));
  });

  it('attaches the provider bytes the merge attaches, so a compaction later keeps them in the context', () => {
    const events: SessionEvent[] = [
      started(),
      submitted('r1', 'q1', 1100),
      settled('r1', [user('q1', 1100), assistant('a1', 1105)], 1106),
      observed([stateRow(1, user('[Workspace::v1: /w]\nq1', 1100.3)), stateRow(2, assistant('a1', 1105.5), { apiContent: 'A1!' })], 1107),
      submitted('r2', 'q2', 1200),
      settled('r2', [user('q2', 1200), assistant('a2', 1205)], 1206),
      observed([stateRow(1, user('q1', 1100.3), { active: false }), stateRow(2, assistant('a1', 1105.5), { active: false })], 1207),
    ];
    const before = evolveAll(initialSessionState(), events.slice(0, 5));
    expect(fastFixPoint(before)).not.toBeNull();
    const view = projectSession(events);
    expect(view.context.find((row) => row.content === 'a1')?.apiContent).toBe('A1!');
    expect(canonicalJson(view)).toBe(canonicalJson(render(evolveAll(initialSessionState(), events, { alwaysMerge: true }))));
  });

  it('keeps its proof out of the state: a state read back from its JSON (a snapshot) has none and folds on alike', () => {
    const events: SessionEvent[] = [
      started(),
      submitted('r1', 'q1', 1100),
      settled('r1', [user('q1', 1100), assistant('a1', 1105)], 1106),
      observed([stateRow(1, user('q1', 1100.3)), stateRow(2, assistant('a1', 1105.5), { apiContent: 'A1!' })], 1107),
      submitted('r2', 'q2', 1200),
      settled('r2', [user('q2', 1200), assistant('a2', 1205)], 1206),
      submitted('r3', 'q3', 1300),
      settled('r3', [user('q3', 1300), assistant('a3', 1305)], 1306),
    ];
    const before = evolveAll(initialSessionState(), events.slice(0, 5));
    const snapshot = JSON.parse(JSON.stringify(before)) as SessionState;
    expect(canonicalJson(snapshot)).toBe(canonicalJson(before));
    expect(fastFixPoint(before)).not.toBeNull();
    expect(fastFixPoint(snapshot)).toBeNull();
    // The snapshot's first commit runs the full merge and records a proof the next one uses.
    const resumed = evolveAll(snapshot, events.slice(5, 6));
    expect(fastFixPoint(resumed)).not.toBeNull();
    expect(canonicalJson(evolveAll(resumed, events.slice(6)))).toBe(canonicalJson(evolveAll(before, events.slice(5))));
  });

  it('runs the full merge when an agent row comes with the row id a committed row carries (found by fast-check)', () => {
    // The pre-pass pairs by row id whatever the time: the UI row gains the copy's provider bytes.
    const events: SessionEvent[] = [
      started(),
      submitted('t1', 'answer', 1020),
      settled('t1', [user('answer', 1020), assistant('answer', 1022)], 1023),
      recorded(user('more text here', 1038, { rowId: 100 })),
      submitted('t2', 'more text here', 1050),
      settled('t2', [user('more text here', 1050), assistant('answer', 1052)], 1053),
      observed(
        [
          stateRow(100, user('[Workspace::v1: /w]\nmore text here', 1050), { apiContent: 'other bytes' }),
          stateRow(101, assistant('answer', 1052), { apiContent: 'other bytes' }),
        ],
        1070,
      ),
      submitted('t3', 'hello', 1080),
      settled('t3', [user('hello', 1080), assistant('answer', 1082)], 1083),
    ];
    const reference = render(evolveAll(initialSessionState(), events, { alwaysMerge: true }));
    expect(canonicalJson(projectSession(events))).toBe(canonicalJson(reference));
  });
});
