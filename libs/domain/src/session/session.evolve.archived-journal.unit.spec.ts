import type { SessionEvent } from '../events/session.events.js';
import { canonicalJson } from '../canonical/canonical-json.js';
import { decide } from './session.decider.js';
import { evolveAll } from './session.evolve.js';
import { projectSession, render } from './session.render.js';
import { initialSessionState, runOf, storedRunOf } from '../session-state/session.state.js';
import { journal, tokens } from '../testing/journal-events.builder.js';
import { assistant, interrupted, settled, started, submitted, user } from '../testing/session.fixtures.js';

/**
 * A run settled without a decision keeps only its seqs (and the versions its journal spans) in the fold state:
 * its rows are committed and nothing derives from its journal any more. A run with a decision keeps its journal.
 */
const fold = (events: readonly SessionEvent[]) => evolveAll(initialSessionState(), events);
const turn = (runId: string, at: number, words: readonly string[]): SessionEvent[] => [
  submitted(runId, `question ${runId}`, at),
  ...tokens(runId, 1, words, at + 1),
  journal(runId, words.length + 1, 'done', {}, at + 2),
  settled(runId, [user(`question ${runId}`, at), assistant(words.join(''), at + 2)], at + 3),
];

describe('a run settled without a decision', () => {
  const events = [started(), ...turn('r1', 1010, ['Hel', 'lo']), ...turn('r2', 1020, ['Bye'])];

  it('keeps its seqs and journal span, not its events', () => {
    const state = fold(events);
    expect(state.version).toBe(events.length);
    expect(runOf(state, 'r1')).toMatchObject({ journal: [], archivedSeqs: [[1, 3]], journalSpan: [3, 5], outcome: 'settled' });
    expect(runOf(state, 'r2')).toMatchObject({ journal: [], archivedSeqs: [[1, 2]], journalSpan: [8, 9] });
  });

  it('renders what it rendered with the journal kept', () => {
    expect(render(fold(events)).display.map((row) => row.content)).toEqual(['question r1', 'Hello', 'question r2', 'Bye']);
  });

  it('records a late seq once and answers a repeat as a duplicate', () => {
    const state = fold(events);
    const command = (seqs: number[]) => ({
      type: 'RecordJournalEvents' as const,
      data: { runId: 'r1', events: seqs.map((seq) => ({ seq, event: 'token', payload: { text: 'x' }, createdAt: 1015 })) },
    });
    expect(decide(command([2, 3]), state)).toEqual({ events: [], duplicate: true });
    const late = decide(command([1, 5, 5]), state);
    expect(late).toMatchObject({ duplicate: false, events: [{ type: 'JournalEventRecorded', data: { runId: 'r1', seq: 5 } }] });
    expect(late.events).toHaveLength(1);
    const after = evolveAll(state, late.events);
    expect(storedRunOf(after, 'r1')).toMatchObject({ journal: [], archivedSeqs: [[1, 3], [5, 5]], journalSpan: [3, events.length + 1] });
    expect(decide(command([5]), after)).toEqual({ events: [], duplicate: true });
    expect(canonicalJson(render(after))).toBe(canonicalJson(render(state)));
  });

  it('keeps a snapshot of a long session to its transcript: tokens per turn do not grow it', () => {
    const session = (words: number) => [started(), ...Array.from({ length: 50 }, (_, i) => turn(`r${i}`, 2000 + 10 * i, Array.from({ length: words }, (_, w) => `w${w} `))).flat()];
    const short = JSON.stringify(fold(session(1))).length;
    const long = JSON.stringify(fold(session(40)));
    // The answers grow (their rows hold the words); the journals do not stay in the state.
    expect(long.length).toBeLessThan(short + 50 * 40 * 8);
    expect(long).not.toContain('"event":"token"');
  });
});

describe('a run with a decision', () => {
  it('keeps its journal, which its recovered rows and marker derive from, also once its worker settles it', () => {
    const events = [started(), submitted('r1', 'question', 1010), ...tokens('r1', 1, ['Partial'], 1011), interrupted('r1', 1100)];
    const state = fold(events);
    expect(runOf(state, 'r1')).toMatchObject({ archivedSeqs: null, journal: [{ seq: 1, payload: { text: 'Partial' } }] });
    expect(projectSession(events).display.map((row) => row.content)).toContain('Partial');
    const superseded = fold([...events, settled('r1', [user('question', 1010), assistant('Partial answer', 1101)], 1102)]);
    expect(runOf(superseded, 'r1')).toMatchObject({ outcome: 'settled', archivedSeqs: null, journal: [{ seq: 1 }] });
  });
});
