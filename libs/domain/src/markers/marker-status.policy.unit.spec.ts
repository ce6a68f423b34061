import type { JournalEvent } from '../messages/message-row.js';
import { INTERRUPTED_MARKER_LEAD } from './marker-wording.constants.js';
import { buildMarkerRow, deriveJournalOutcome, deriveMarkerStatus } from './marker-status.policy.js';
import { summarizeJournal } from '../journal/journal-summary.projection.js';
import { journalEvents } from '../testing/journal-events.builder.js';

const ev = journalEvents(100);
const statusOf = (events: readonly JournalEvent[], abandoned = false, superseded = false) =>
  deriveMarkerStatus({ journal: summarizeJournal('run-1', events), abandoned, superseded });

describe('the status of an interruption marker', () => {
  it('is pending while the journal has nothing yet', () => {
    expect(statusOf([])).toBe('pending_journal');
  });

  it('is pending while a journal without output has no terminal event', () => {
    expect(statusOf([ev(1, 'metering'), ev(2, 'tool_complete', { name: 'x' })])).toBe('pending_journal');
  });

  it('is pending while a seq before the terminal event is missing', () => {
    expect(statusOf([ev(1, 'metering'), ev(3, 'stream_end')])).toBe('pending_journal');
  });

  it('is no_output once a complete journal ends without output', () => {
    const echo = ev(2, 'interim_assistant', { text: 'x', already_streamed: true });
    expect(statusOf([ev(1, 'metering'), echo, ev(3, 'stream_end')])).toBe('no_output');
  });

  it('is recovered as soon as the journal shows output, gaps or not', () => {
    expect([statusOf([ev(2, 'token', { text: 'Hi' })]), statusOf([ev(1, 'tool'), ev(3, 'done')], true)]).toEqual([
      'recovered',
      'recovered',
    ]);
  });

  it('is neutral once recovery was abandoned without output', () => {
    expect([statusOf([], true), statusOf([ev(1, 'metering'), ev(3, 'stream_end')], true)]).toEqual(['neutral', 'neutral']);
  });

  it('prefers no_output over neutral when the complete journal proves there is none', () => {
    expect(statusOf([ev(1, 'stream_end')], true)).toBe('no_output');
  });

  it('is superseded when the run settled itself, whatever the journal says', () => {
    const withOutput = [ev(1, 'token', { text: 'x' })];
    expect([statusOf([], false, true), statusOf(withOutput, true, true)]).toEqual(['superseded', 'superseded']);
  });

  describe('when the journal arrives a day late', () => {
    it('promotes the marker by re-derivation', () => {
      const early = [ev(3, 'stream_end')];
      const late = [...early, ev(1, 'token', { text: 'partial' }), ev(2, 'tool')];
      expect([statusOf(early), statusOf(late)]).toEqual(['pending_journal', 'recovered']);
    });
  });
});

describe('the one marker rule: does the journal settle the turn (§3.5, architecture "Markers are derived")', () => {
  const outcomeOf = (events: readonly JournalEvent[], abandoned = false) => deriveJournalOutcome(summarizeJournal('run-1', events), abandoned);
  it.each([
    [[ev(1, 'token', { text: 'x' }), ev(2, 'done')], 'settled'],
    [[ev(1, 'done'), ev(2, 'stream_end')], 'settled'],
    [[ev(1, 'done')], 'settled'],
    [[ev(1, 'metering'), ev(2, 'done')], 'settled'],
    [[ev(1, 'token', { text: 'x' }), ev(2, 'stream_end')], 'settled'],
    [[ev(2, 'token', { text: 'x' }), ev(3, 'stream_end')], 'settled'],
    [[ev(1, 'stream_end')], 'no_output'],
    [[ev(2, 'done')], 'pending_journal'],
    [[ev(2, 'stream_end')], 'pending_journal'],
    [[ev(1, 'done', { terminal_state: 'tool_limit_reached' })], 'no_output'],
    [[ev(1, 'apperror', { type: 'x' }), ev(2, 'stream_end')], 'no_output'],
    [[ev(1, 'cancel'), ev(2, 'stream_end')], 'no_output'],
    [[ev(1, 'token', { text: 'x' })], 'recovered'],
    [[], 'pending_journal'],
  ])('%j gives %s', (events, expected) => {
    expect(outcomeOf(events)).toBe(expected);
  });

  it('settles a done journal, with or without output, whatever arrived before or after the decision', () => {
    expect([outcomeOf([ev(1, 'done')], true), outcomeOf([ev(1, 'reasoning', { text: 'r' }), ev(2, 'done')], true)]).toEqual([
      'settled',
      'settled',
    ]);
  });

  it('keeps a done behind a missing seq pending (givable up), and settles it once the seq arrives (issue 11 repro)', () => {
    expect([outcomeOf([ev(2, 'done')]), outcomeOf([ev(2, 'done')], true)]).toEqual(['pending_journal', 'neutral']);
    expect(outcomeOf([ev(2, 'done'), ev(1, 'metering')], true)).toBe('settled');
  });
});

describe('a marker row (§3.4)', () => {
  it('is an interrupted error row with the composed content and a whole-second time', () => {
    expect(buildMarkerRow({ cause: 'lost_worker_bookkeeping', status: 'no_output', timestamp: 1779237700.9 })).toEqual({
      role: 'assistant',
      content:
        `${INTERRUPTED_MARKER_LEAD} Evidence: the stream was gone and worker bookkeeping no longer had an active run for it. ` +
        'This usually means the worker state was lost or cleaned up without a terminal event. ' +
        'The user message above was preserved, but no agent output was recovered.',
      timestamp: 1779237700,
      error: true,
      type: 'interrupted',
      interruptionCause: 'lost_worker_bookkeeping',
    });
  });
});
