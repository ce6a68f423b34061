import type { JournalEvent } from '../messages/message-row.js';
import { flattenJournal, journalOfDeliveries } from './journal-chunks.js';
import { payloadText } from './journal-text.helpers.js';
import { ws } from '../text/whitespace.js';
import type { JournalState, JournalSummary, SeqGap, TerminalState } from './journal.types.js';

const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['done', 'stream_end', 'cancel', 'apperror', 'error']);

export function isTerminalEvent(event: Pick<JournalEvent, 'event'>): boolean {
  return TERMINAL_EVENTS.has(event.event);
}

/** Reference §1.4: the terminal state one event stands for, or null for a non-terminal event. */
export function eventTerminalState(event: Pick<JournalEvent, 'event' | 'payload'>): TerminalState | null {
  const payload = event.payload ?? {};
  switch (event.event) {
    case 'done':
    case 'stream_end':
      return payload['terminal_state'] === 'tool_limit_reached' ? 'tool_limit_reached' : 'completed';
    case 'cancel':
      return 'interrupted-by-user';
    case 'apperror':
    case 'error':
      return errorTerminalState(payload['type']);
    default:
      return null;
  }
}

function errorTerminalState(type: unknown): TerminalState {
  if (type === 'tool_limit_reached') return 'tool_limit_reached';
  if (type === 'cancelled' || type === 'canceled') return 'interrupted-by-user';
  if (type === 'interrupted') return 'interrupted-by-crash';
  return 'errored';
}

/** §3.7 end: a non-empty token, a fresh non-blank interim sentence, non-blank reasoning, or any tool event. */
export function isVisibleOutputEvent(event: JournalEvent): boolean {
  const payload = event.payload ?? {};
  switch (event.event) {
    case 'token':
      return payloadText(payload, 'text') !== '';
    case 'interim_assistant':
      return !payload['already_streamed'] && ws(payloadText(payload, 'text')) !== '';
    case 'reasoning':
      return ws(payloadText(payload, 'text', 'reasoning', 'thinking')) !== '';
    case 'tool':
      return true;
    default:
      return false;
  }
}

/** A seq a journal keeps: a safe integer from 1 (an event with any other is left out of every derivation). */
export function isValidSeq(seq: unknown): seq is number {
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 1;
}

/** Stream_end only closes the transport: it never overrides an earlier semantic terminal event. */
function authoritativeTerminal(ordered: readonly JournalEvent[]): JournalEvent | null {
  const terminals = ordered.filter(isTerminalEvent);
  const semantic = terminals.filter((event) => event.event !== 'stream_end');
  return semantic.at(-1) ?? terminals.at(-1) ?? null;
}

function seqGaps(ordered: readonly JournalEvent[]): SeqGap[] {
  const gaps: SeqGap[] = [];
  let expected = 1;
  for (const { seq } of ordered) {
    if (seq > expected) gaps.push([expected, seq - 1]);
    expected = seq + 1;
  }
  return gaps;
}

/** Whether `events` already is a journal: valid seqs, strictly increasing. */
function isOrdered(events: readonly JournalEvent[]): boolean {
  let previous = 0;
  for (const { seq } of events) {
    if (!isValidSeq(seq) || seq <= previous) return false;
    previous = seq;
  }
  return true;
}

/** The journal the deliveries make (first delivery of a seq wins, in seq order), invalid seqs left out. */
function orderedDeliveries(events: readonly JournalEvent[]): readonly JournalEvent[] {
  // A stored journal is kept in this order (journal-chunks.ts) and is summarised on every derivation of its run.
  if (isOrdered(events)) return events.slice();
  return flattenJournal(journalOfDeliveries(events.filter((event) => isValidSeq(event.seq))));
}

/** Folds raw deliveries of one run (any order, repeats allowed) into the journal read model. */
export function summarizeJournal(runId: string, events: readonly JournalEvent[]): JournalSummary {
  const ordered = orderedDeliveries(events);
  const authoritative = authoritativeTerminal(ordered);
  const fallbackState: JournalState = ordered.length > 0 ? 'running' : 'unknown';
  return {
    runId,
    events: ordered,
    lastSeq: ordered.at(-1)?.seq ?? 0,
    gaps: seqGaps(ordered),
    terminal: authoritative !== null,
    terminalState: authoritative ? (eventTerminalState(authoritative) ?? fallbackState) : fallbackState,
    authoritativeEvent: authoritative,
    hasVisibleOutput: ordered.some(isVisibleOutputEvent),
  };
}
