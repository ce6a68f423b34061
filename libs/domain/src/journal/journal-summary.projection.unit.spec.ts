import fc from 'fast-check';
import { eventTerminalState, summarizeJournal } from './journal-summary.projection.js';
import { type JournalSummary } from './journal.types.js';
import { journalEvents } from '../testing/journal-events.builder.js';

const ev = journalEvents(1000);

describe('the terminal state of a journal event (§1.4)', () => {
  it.each([
    ['done', {}, 'completed'],
    ['done', { terminal_state: 'tool_limit_reached' }, 'tool_limit_reached'],
    ['stream_end', {}, 'completed'],
    ['stream_end', { terminal_state: 'tool_limit_reached' }, 'tool_limit_reached'],
    ['cancel', {}, 'interrupted-by-user'],
    ['apperror', { type: 'tool_limit_reached' }, 'tool_limit_reached'],
    ['apperror', { type: 'cancelled' }, 'interrupted-by-user'],
    ['apperror', { type: 'canceled' }, 'interrupted-by-user'],
    ['apperror', { type: 'interrupted' }, 'interrupted-by-crash'],
    ['apperror', { type: 'quota_exceeded' }, 'errored'],
    ['apperror', {}, 'errored'],
    ['error', { type: 'tool_limit_reached' }, 'tool_limit_reached'],
    ['error', { type: 'cancelled' }, 'interrupted-by-user'],
    ['error', { type: 'canceled' }, 'interrupted-by-user'],
    ['error', { type: 'interrupted' }, 'interrupted-by-crash'],
    ['error', { type: 'boom' }, 'errored'],
    ['token', { text: 'x' }, null],
    ['tool', {}, null],
    ['metering', { terminal_state: 'completed' }, null],
  ] as const)('maps %s %j to %s', (event, payload, expected) => {
    expect(eventTerminalState(ev(1, event, payload))).toBe(expected);
  });
});

describe('a journal summary', () => {
  it('is unknown and empty when no event arrived', () => {
    expect(summarizeJournal('run-1', [])).toEqual({
      runId: 'run-1',
      events: [],
      lastSeq: 0,
      gaps: [],
      terminal: false,
      terminalState: 'unknown',
      authoritativeEvent: null,
      hasVisibleOutput: false,
    });
  });

  it('is running while no terminal event arrived', () => {
    const events = [ev(1, 'token', { text: 'Hi' }), ev(2, 'metering')];
    expect(summarizeJournal('run-1', events)).toEqual<JournalSummary>({
      runId: 'run-1',
      events,
      lastSeq: 2,
      gaps: [],
      terminal: false,
      terminalState: 'running',
      authoritativeEvent: null,
      hasVisibleOutput: true,
    });
  });

  it('keeps done authoritative over the stream_end that closes the transport after it', () => {
    const summary = summarizeJournal('run-1', [ev(1, 'done', {}), ev(2, 'title'), ev(3, 'stream_end')]);
    expect([summary.terminal, summary.terminalState, summary.authoritativeEvent]).toEqual([true, 'completed', ev(1, 'done')]);
  });

  it('keeps an apperror authoritative over a later stream_end', () => {
    const summary = summarizeJournal('run-1', [ev(1, 'apperror', { type: 'interrupted' }), ev(2, 'stream_end')]);
    expect([summary.terminalState, summary.authoritativeEvent]).toEqual([
      'interrupted-by-crash',
      ev(1, 'apperror', { type: 'interrupted' }),
    ]);
  });

  it('takes the latest semantic terminal event when several arrived', () => {
    const summary = summarizeJournal('run-1', [ev(1, 'done'), ev(2, 'apperror', { type: 'x' }), ev(3, 'stream_end')]);
    expect([summary.terminalState, summary.authoritativeEvent?.seq]).toEqual(['errored', 2]);
  });

  it('falls back to the last stream_end when it is the only terminal event', () => {
    const payload = { terminal_state: 'tool_limit_reached' };
    const summary = summarizeJournal('run-1', [ev(1, 'stream_end'), ev(2, 'stream_end', payload)]);
    expect([summary.terminalState, summary.authoritativeEvent]).toEqual(['tool_limit_reached', ev(2, 'stream_end', payload)]);
  });

  it('lists every missing seq range between 1 and the last seq', () => {
    const summary = summarizeJournal('run-1', [ev(2, 'token'), ev(3, 'token'), ev(6, 'token'), ev(9, 'done')]);
    expect([summary.lastSeq, summary.gaps]).toEqual([9, [[1, 1], [4, 5], [7, 8]]]);
  });

  it('orders events by seq and keeps the first delivery of a repeated seq', () => {
    const first = ev(2, 'token', { text: 'first' });
    const summary = summarizeJournal('run-1', [first, ev(1, 'token', { text: 'a' }), ev(2, 'token', { text: 'again' })]);
    expect(summary.events).toEqual([ev(1, 'token', { text: 'a' }), first]);
  });

  it('leaves out events whose seq is not a positive integer', () => {
    const summary = summarizeJournal('run-1', [ev(0, 'done'), ev(1.5, 'done'), ev(-1, 'done'), ev(1, 'token', { text: 'a' })]);
    expect([summary.events, summary.terminal]).toEqual([[ev(1, 'token', { text: 'a' })], false]);
  });

  it('is the same for any delivery order and any repetition of the same events', () => {
    const events = [ev(1, 'token', { text: 'a' }), ev(2, 'tool'), ev(4, 'apperror', { type: 'x' }), ev(5, 'stream_end')];
    const expected = summarizeJournal('run-1', events);
    const deliveries = fc.array(fc.constantFrom(...events), { minLength: 0, maxLength: 12 });
    fc.assert(
      fc.property(fc.shuffledSubarray(events, { minLength: 4 }), deliveries, (shuffled, repeats) => {
        expect(summarizeJournal('run-1', [...shuffled, ...repeats])).toEqual(expected);
      }),
    );
    expect([expected.gaps, expected.terminalState]).toEqual([[[3, 3]], 'errored']);
  });
});

describe('journal visible output (§3.7)', () => {
  it.each([
    [ev(1, 'token', { text: ' ' }), true],
    [ev(1, 'token', { text: '' }), false],
    [ev(1, 'interim_assistant', { text: 'Checking', already_streamed: false }), true],
    [ev(1, 'interim_assistant', { text: 'Checking', already_streamed: true }), false],
    [ev(1, 'interim_assistant', { text: '   ' }), false],
    [ev(1, 'reasoning', { text: 'plan' }), true],
    [ev(1, 'reasoning', { thinking: 'plan' }), true],
    [ev(1, 'reasoning', { reasoning: ' \n ' }), false],
    [ev(1, 'tool', {}), true],
    [ev(1, 'tool_complete', { name: 'terminal' }), false],
    [ev(1, 'done', {}), false],
  ])('%j counts as visible output: %s', (event, expected) => {
    expect(summarizeJournal('run-1', [event]).hasVisibleOutput).toBe(expected);
  });
});
