import type { MessageRow } from '../messages/message-row.js';
import { rowText } from '../messages/message-text.js';
import { DEFAULT_SOURCE, isSameCheckpoint, sourceOf } from '../messages/user-checkpoint.js';
import { ws } from '../text/whitespace.js';
import type { PendingTurn } from './journal.types.js';

/**
 * §4.4: the user row a recovery materialises from the pending turn. The checkpoint timestamp is
 * the integer part of `submittedAt`; attachments only when there are some, source only when it
 * is not the default `webui`.
 */
export function buildRecoveredPendingRow(pending: PendingTurn): MessageRow {
  const attachments = pending.attachments ?? [];
  const source = sourceOf(pending.source);
  return {
    role: 'user',
    content: pending.text,
    timestamp: Math.trunc(pending.submittedAt),
    recovered: true,
    ...(attachments.length > 0 ? { attachments: [...attachments] } : {}),
    ...(source !== DEFAULT_SOURCE ? { source } : {}),
  };
}

/** §4.3 "checkpoint match": the row is the pending turn's user row. */
export function isCheckpointMatch(row: MessageRow, pending: PendingTurn): boolean {
  return isSameCheckpoint(row, buildRecoveredPendingRow(pending));
}

/** Index of the last row that starts the pending turn: a checkpoint match or a user row with its text. */
export function findTurnStart(rows: readonly MessageRow[], pending: PendingTurn): number | null {
  const text = ws(pending.text);
  for (let index = rows.length - 1; index >= 0; index -= 1) {
    const row = rows[index];
    if (isCheckpointMatch(row, pending) || (row.role === 'user' && ws(rowText(row)) === text)) return index;
  }
  return null;
}
