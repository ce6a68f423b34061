import { comparePositions, type EventPosition, type LogCursor, type LogPosition, START } from './event-store.js';

/**
 * The cursor after `positions` were handled: each origin's position moves to the last of its own positions
 * among them (a page lists each origin's events in that origin's order, so any prefix of a page is a prefix
 * of each origin's part of it).
 */
export function advanceCursor(cursor: LogCursor, positions: readonly EventPosition[]): LogCursor {
  if (positions.length === 0) return cursor;
  const next: Record<string, LogPosition> = { ...cursor };
  for (const { origin, transactionId, globalPosition } of positions) {
    const current = next[origin];
    const position = { transactionId, globalPosition };
    if (current === undefined || comparePositions(position, current) > 0) next[origin] = position;
  }
  return next;
}

/** Whether a reader at `cursor` has read past `position` (then every read model it feeds includes that event). */
export function cursorPassed(cursor: LogCursor, position: Pick<EventPosition, 'origin' | 'transactionId' | 'globalPosition'>): boolean {
  const reached = cursor[position.origin];
  return reached !== undefined && comparePositions(position, reached) <= 0;
}

/** A cursor as stored (`projection_checkpoints.cursor`, jsonb): anything else reads as the start. */
export function parseCursor(stored: unknown): LogCursor {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return START;
  const cursor: Record<string, LogPosition> = {};
  for (const [origin, value] of Object.entries(stored as Record<string, unknown>)) {
    const { transactionId, globalPosition } = (value ?? {}) as Record<string, unknown>;
    if (!/^\d+$/.test(origin) || typeof transactionId !== 'string' || typeof globalPosition !== 'string') continue;
    if (!/^\d+$/.test(transactionId) || !/^\d+$/.test(globalPosition)) continue;
    cursor[origin] = { transactionId, globalPosition };
  }
  return cursor;
}

/** Each origin at the further of its two positions: what two readers that each handled their pages have covered. */
export function mergeCursors(a: LogCursor, b: LogCursor): LogCursor {
  const merged: Record<string, LogPosition> = { ...a };
  for (const [origin, position] of Object.entries(b)) {
    const current = merged[origin];
    if (current === undefined || comparePositions(position, current) > 0) merged[origin] = position;
  }
  return merged;
}
