import { findRun, putRun } from './run-table.js';
import { emptyRun, type SessionState, type StoredRun } from './session.state.js';
import type { Mutable, Transient } from './transient.js';

/** The state being folded: owned by one `evolveAll` call, written in place. */
export type Draft = Mutable<SessionState>;

/** `lastActivityAt` is the max of every event time field seen. */
export function touch(draft: Draft, time: unknown): void {
  if (typeof time !== 'number' || !Number.isFinite(time)) return;
  if (draft.lastActivityAt === null || time > draft.lastActivityAt) draft.lastActivityAt = time;
}

/**
 * §2.5 R9: a committed user row moves a positive watermark to its timestamp, never from or to 0 (0 is the
 * "cleared" sentinel and stays until the next truncation).
 */
export function advanceWatermark(watermark: number | null, timestamp: unknown): number | null {
  if (watermark === null || watermark <= 0) return watermark;
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || timestamp <= 0) return watermark;
  return timestamp;
}

/**
 * The run `runId` as a record this fold may write (created if new), stored in the draft's run table. The first
 * write of a fold copies the bucket list, one bucket and the record; later ones find the record memoised.
 */
export function ownRun(transient: Transient, draft: Draft, runId: string): Mutable<StoredRun> {
  const memo = transient.memo.get(runId) as Mutable<StoredRun> | undefined;
  if (memo !== undefined) return memo;
  const stored = findRun(draft.runs, runId);
  const run = stored === undefined ? transient.adopt(emptyRun(runId)) : transient.own(stored);
  draft.runs = putRun(transient, draft.runs, run);
  transient.memo.set(runId, run);
  return run;
}
