import type { MessageRow, ToolCard } from '../messages/message-row.js';
import { rowText } from '../messages/message-text.js';
import { ws } from '../text/whitespace.js';
import { MARKER_PHRASES } from './marker-wording.constants.js';

export interface PlacedRows {
  readonly rows: readonly MessageRow[];
  /** The cards with `assistantMessageIndex` following their rows to the new positions. */
  readonly toolCards: readonly ToolCard[];
}

/** An interruption marker row (§3.4). */
export function isInterruptedMarker(row: MessageRow): boolean {
  return row.error === true && row.type === 'interrupted';
}

/**
 * §3.9: the order is user row → recovered rows → marker. Rows of the run's journal that sit after
 * the newest marker (a journal that arrived after the marker was placed) move to just above it,
 * in their order; other rows after the marker stay after it. Tool cards follow their rows.
 */
export function placeRecoveredRows(
  rows: readonly MessageRow[],
  runId: string,
  toolCards: readonly ToolCard[] = [],
): PlacedRows {
  const marker = rows.findLastIndex(isInterruptedMarker);
  const isMoved = (row: MessageRow, index: number): boolean =>
    index > marker && row.recoveredFromRunJournal === true && row.recoveredRunId === runId;
  if (marker < 0 || !rows.some(isMoved)) return { rows: [...rows], toolCards: [...toolCards] };
  const order = rows.map((_, index) => index);
  const before = order.slice(0, marker);
  const moved = order.filter((index) => isMoved(rows[index], index));
  const after = order.filter((index) => index > marker && !isMoved(rows[index], index));
  const placed = [...before, ...moved, marker, ...after];
  const newIndexOf = new Map(placed.map((oldIndex, newIndex) => [oldIndex, newIndex]));
  return {
    rows: placed.map((oldIndex) => rows[oldIndex]),
    toolCards: toolCards.map((card) =>
      card.assistantMessageIndex === null || !newIndexOf.has(card.assistantMessageIndex)
        ? card
        : { ...card, assistantMessageIndex: newIndexOf.get(card.assistantMessageIndex) ?? null },
    ),
  };
}

/**
 * §3.10: a run's own late settle may replace its marker only while the marker is the last row
 * (at least two rows) and the nearest non-error user row before it carries the run's prompt.
 * The caller also checks that no turn is pending.
 */
export function canSupersedeMarker(rows: readonly MessageRow[], runText: string): boolean {
  if (rows.length < 2) return false;
  const last = rows[rows.length - 1];
  const text = rowText(last);
  if (!isInterruptedMarker(last) || !MARKER_PHRASES.every((phrase) => text.includes(phrase))) return false;
  const prompt = rows.slice(0, -1).findLast((row) => row.role === 'user' && !row.error);
  return prompt !== undefined && ws(rowText(prompt)) === ws(runText);
}
