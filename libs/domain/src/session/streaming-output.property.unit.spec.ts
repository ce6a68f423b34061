import fc from 'fast-check';
import { materialiseJournal } from '../journal/journal-output.materialiser.js';
import type { JournalEvent } from '../messages/message-row.js';
import { runOf, type SessionState } from '../session-state/session.state.js';
import { evolve, evolveAll, initialSessionState, type SessionEvent } from '../index.js';
import { sessionHistoryArb } from '../testing/session-event.arbitrary.js';
import { journal, started, submitted } from '../testing/session.fixtures.js';
import { followStreaming, type StreamingFold, type StreamingOutput, streamingOutputOf } from './streaming-output.js';

/** The streaming output as it was defined before the fold: §3.7's pass over the pending turn's whole journal. */
function wholePass(state: SessionState): StreamingOutput | null {
  const pending = state.pending;
  if (pending === null) return null;
  const { rows, toolCards } = materialiseJournal({
    runId: pending.runId,
    events: runOf(state, pending.runId)?.journal ?? [],
    rows: [],
    context: [],
    toolCards: [],
    dedupeExisting: false,
    pending: null,
    fallbackTimestamp: Math.trunc(pending.submittedAt),
  });
  const texts = (pick: (row: (typeof rows)[number]) => unknown) =>
    rows
      .map(pick)
      .filter((text): text is string => typeof text === 'string' && text !== '')
      .join('\n\n');
  return { runId: pending.runId, text: texts((row) => row.content), reasoning: texts((row) => row.reasoning), toolCards: toolCards.map((card) => ({ ...card, assistantMessageIndex: null })) };
}

const piece = fc.constantFrom('a', 'b c', ' ', '  ', '\n', 'x\n\n', ' y ', '');
const delivery = fc.record({
  seq: fc.integer({ min: 1, max: 30 }),
  event: fc.constantFrom('token', 'token', 'token', 'reasoning', 'interim_assistant', 'tool', 'tool_complete', 'done', 'stream_end', 'error', 'other'),
  text: fc.array(piece, { maxLength: 3 }).map((parts) => parts.join('')),
  flag: fc.boolean(),
});

function eventOf(runId: string, d: { seq: number; event: string; text: string; flag: boolean }, at: number): SessionEvent {
  const payload: JournalEvent['payload'] =
    d.event === 'tool' || d.event === 'tool_complete'
      ? { name: d.flag ? 'read_file' : 'grep', ...(d.event === 'tool' ? { args: { q: d.text } } : { result: d.text }) }
      : d.event === 'interim_assistant'
        ? { text: d.text, ...(d.flag ? { already_streamed: true } : {}) }
        : { text: d.text };
  return journal(runId, d.seq, d.event, payload, at);
}

/**
 * Follows `events` as a reader does, checking every output it reads against the whole pass: each version, or only
 * those `read` picks (a reader behind skips versions, and the fold then reads several events at once).
 */
function followEach(events: readonly SessionEvent[], read: (index: number) => boolean = () => true): { continued: number; versions: number } {
  let state = initialSessionState();
  let fold: StreamingFold | null = null;
  let continued = 0;
  for (const [index, event] of events.entries()) {
    state = evolve(state, event);
    if (!read(index)) continue;
    const next = followStreaming(fold, state);
    if (fold !== null && next.fold === fold) continued += 1;
    expect(next.output).toEqual(wholePass(state));
    expect(streamingOutputOf(state)).toEqual(next.output);
    fold = next.fold;
  }
  return { continued, versions: events.length };
}

describe('the pending turn’s streaming output, followed version by version', () => {
  it('is at every version what §3.7’s pass over the whole journal makes, deliveries in any order, repeats and all', () => {
    fc.assert(
      fc.property(fc.array(delivery, { maxLength: 40 }), (deliveries) => {
        const events = [started('s1', 100), submitted('r1', 'go', 101), ...deliveries.map((d, i) => eventOf('r1', d, 102 + i))];
        followEach(events);
      }),
      { numRuns: 300 },
    );
  });

  it('is so for a reader that skips versions (several events read at once)', () => {
    fc.assert(
      fc.property(fc.array(delivery, { maxLength: 40 }), fc.array(fc.boolean(), { minLength: 42, maxLength: 42 }), (deliveries, reads) => {
        const events = [started('s1', 100), submitted('r1', 'go', 101), ...deliveries.map((d, i) => eventOf('r1', d, 102 + i))];
        followEach(events, (index) => reads[index]!);
      }),
      { numRuns: 300 },
    );
  });

  it('is so across whole session histories too (turns settled, interrupted, submitted again)', () => {
    fc.assert(
      fc.property(sessionHistoryArb, (events) => {
        followEach(events);
      }),
      { numRuns: 150 },
    );
  });

  it('continues the fold for deliveries in seq order (it reads only what each version added), and starts afresh when one lands before what it read', () => {
    const texts = Array.from({ length: 50 }, (_, i) => ` t${i}`);
    const inOrder = [started('s1', 100), submitted('r1', 'go', 101), ...texts.map((text, i) => journal('r1', i + 1, 'token', { text }, 102 + i))];
    // Every version after the submission continues the fold begun there.
    expect(followEach(inOrder).continued).toBe(texts.length);

    let state = evolveAll(initialSessionState(), [...inOrder, journal('r1', 60, 'token', { text: ' late' }, 200)]);
    const { fold } = followStreaming(null, state);
    state = evolve(state, journal('r1', 55, 'token', { text: ' early' }, 201));
    const next = followStreaming(fold, state);
    expect(next.fold).not.toBe(fold);
    expect(next.output?.text).toBe(`${texts.join('').trim()} early late`);
  });
});
