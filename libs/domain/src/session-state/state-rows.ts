import type { StateRow } from '../messages/message-row.js';
import type { PendingTurnView } from './session.state.js';

/** Index of `rowId` in rows sorted by rowId, or `-(insertion point) - 1` when absent. */
export function findStateRow(rows: readonly StateRow[], rowId: number): number {
  let low = 0;
  let high = rows.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = rows[middle].rowId;
    if (found === rowId) return middle;
    if (found < rowId) low = middle + 1;
    else high = middle - 1;
  }
  return -low - 1;
}

/** The stored form of an observation: active rows drop the default `active: true`, inactive rows keep `false`. */
export function storedStateRow(row: StateRow): StateRow {
  if (row.active === false || !('active' in row)) return row;
  const { active: _active, ...rest } = row;
  return rest;
}

/**
 * Replaces or inserts one observation in place, stamping `seen` with the observation count; agent row ids
 * mostly grow, so this is usually a push.
 */
export function upsertStateRow(rows: StateRow[], seen: number[], row: StateRow, observation: number): void {
  const stored = storedStateRow(row);
  const last = rows.at(-1);
  if (last === undefined || last.rowId < row.rowId) {
    rows.push(stored);
    seen.push(observation);
    return;
  }
  const index = findStateRow(rows, row.rowId);
  if (index >= 0) {
    rows[index] = stored;
    seen[index] = observation;
  } else {
    rows.splice(-index - 1, 0, stored);
    seen.splice(-index - 1, 0, observation);
  }
}

export type StateRowInclusion = 'included' | 'held' | 'inactive';

/**
 * While a turn is pending its live worker owns the write-back (§4.5): rows stamped after the submission are
 * held back until the turn is settled or decided. Compacted rows (`active: false`) never take part.
 */
export function stateRowInclusion(row: StateRow, pending: PendingTurnView | null): StateRowInclusion {
  if (row.active === false) return 'inactive';
  if (pending !== null && typeof row.timestamp === 'number' && row.timestamp > pending.submittedAt) return 'held';
  return 'included';
}

/** T as the merge sees it: the included rows, in rowId order. */
export function effectiveStateRows(rows: readonly StateRow[], pending: PendingTurnView | null): StateRow[] {
  return rows.filter((row) => stateRowInclusion(row, pending) === 'included');
}
