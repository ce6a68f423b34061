import type { MessageRow } from '../messages/message-row.js';
import { contentStringOf } from './row-fields.normalizer.js';
import { hasToolCalls } from '../messages/message-row.js';
import { ws } from '../text/whitespace.js';
import {
  appendSlot,
  createTimeline,
  findFirst,
  insertSlotAt,
  isFirstPosition,
  nextPosition,
  slotAt,
  slotBefore,
  slotOf,
  timelineRows,
  type Position,
  type Slot,
  type Timeline,
} from './timeline.list.js';

/** How a row ties with equal-timestamp rows (reference §2.4 candidate rule (b), R6). */
type TieMode = 'user' | 'tool-call-only' | 'plain';

function tieModeOf(row: MessageRow): TieMode {
  if (row.role === 'user') return 'user';
  if (row.role === 'assistant' && hasToolCalls(row) && ws(contentStringOf(row)) === '') return 'tool-call-only';
  return 'plain';
}

/** An equal-timestamp slot the new row must precede: a user before its answer, a tool call before the text. */
function precedesOnTie(mode: TieMode, slot: Slot): boolean {
  return (mode === 'user' && slot.role === 'assistant') || (mode === 'tool-call-only' && slot.answers);
}

/**
 * Places a row at its chronological slot (reference §2.4) and reports whether it went in. A row
 * without timestamp is appended. A row older than the first row is refused (R8): it cannot be told
 * apart from a prompt that compaction removed.
 */
export function placeChronologically(timeline: Timeline, slot: Slot): boolean {
  const tau = slot.ts;
  const row = slot.row;
  if (tau === null) {
    appendSlot(timeline, slot);
    return true;
  }
  const mode = tieModeOf(row);
  const candidate = findFirst(
    timeline,
    (summary) =>
      summary.maxTs > tau ||
      (mode === 'user' && summary.maxAssistantTs >= tau) ||
      (mode === 'tool-call-only' && summary.maxAnswerTs >= tau),
    (other) => other.ts !== null && (other.ts > tau || (other.ts === tau && precedesOnTie(mode, other))),
  );
  if (candidate === null) {
    appendSlot(timeline, slot);
    return true;
  }
  if (isFirstPosition(candidate) && (slotAt(timeline, candidate)?.ts ?? -Infinity) > tau) return false;
  insertSlotAt(timeline, settle(timeline, candidate, slot.role, tau, mode), slot);
  return true;
}

/** Moves the slot right until neither guard applies (a fixpoint: one guard can re-enable the other). */
function settle(timeline: Timeline, start: Position, role: string, tau: number, mode: TieMode): Position {
  let position = start;
  for (;;) {
    const before = position;
    position = pastToolResults(timeline, position);
    position = pastEqualTimestampRun(timeline, position, role, tau, mode);
    if (before.chunk === position.chunk && before.offset === position.offset) return position;
  }
}

/** Guard (a), R7: never split an assistant tool call from any of its following tool results. */
function pastToolResults(timeline: Timeline, start: Position): Position {
  if (slotAt(timeline, start)?.role !== 'tool' || slotBefore(timeline, start)?.callsTools !== true) return start;
  let position = start;
  while (slotAt(timeline, position)?.role === 'tool') position = nextPosition(timeline, position);
  return position;
}

/** Guard (b), R6: never enter an equal-timestamp run of the row's own role. */
function pastEqualTimestampRun(timeline: Timeline, start: Position, role: string, tau: number, mode: TieMode): Position {
  let position = start;
  for (;;) {
    const current = slotAt(timeline, position);
    const previous = slotBefore(timeline, position);
    if (current === null || previous === null || previous.role !== role || current.ts !== tau) return position;
    if (mode === 'tool-call-only' && current.answers) return position;
    position = nextPosition(timeline, position);
  }
}

/** The pure form of §2.4 over a plain list: returns a new list and whether the row was placed. */
export function insertChronologically(
  rows: readonly MessageRow[],
  row: MessageRow,
): { rows: MessageRow[]; inserted: boolean } {
  const timeline = createTimeline(rows.map(slotOf));
  const inserted = placeChronologically(timeline, slotOf(row));
  return { rows: inserted ? timelineRows(timeline) : rows.slice(), inserted };
}
