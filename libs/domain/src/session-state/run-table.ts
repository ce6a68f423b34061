import type { Transient } from './transient.js';

/** What the table files a run by. */
export interface KeyedRun {
  readonly runId: string;
}

/**
 * The runs of a session, in RUN_BUCKETS buckets picked by a pure hash of the run id. Writing one run copies the
 * bucket list and one bucket (about runs / RUN_BUCKETS entries), not every run, so a token of a session with
 * 5,000 runs costs about what it costs with 10. A bucket is an array searched by run id: no run id can hit an
 * Object prototype key, and the table stays plain JSON.
 */
export type RunTable<R extends KeyedRun = KeyedRun> = readonly (readonly R[])[];

export const RUN_BUCKETS = 64;

export function emptyRunTable<R extends KeyedRun>(): RunTable<R> {
  return Array.from({ length: RUN_BUCKETS }, () => []);
}

/** FNV-1a over the UTF-16 code units: pure, the same on every replica. */
export function bucketOf(runId: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < runId.length; index += 1) {
    hash ^= runId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % RUN_BUCKETS;
}

export function findRun<R extends KeyedRun>(table: RunTable<R>, runId: string): R | undefined {
  const bucket = table[bucketOf(runId)];
  if (bucket === undefined) return undefined;
  for (const run of bucket) if (run.runId === runId) return run;
  return undefined;
}

/** Every run, bucket by bucket (an order with no meaning: callers needing one sort). */
export function* allRuns<R extends KeyedRun>(table: RunTable<R>): Iterable<R> {
  for (const bucket of table) yield* bucket;
}

/**
 * Stores `run` (a record this fold owns) in its bucket, copying the table and the bucket unless this fold owns
 * them already, and returns the table to store.
 */
export function putRun<R extends KeyedRun>(transient: Transient, table: RunTable<R>, run: R): RunTable<R> {
  const ownedTable = transient.ownArray(table);
  const at = bucketOf(run.runId);
  const bucket = transient.ownArray(ownedTable[at] ?? []);
  const index = bucket.findIndex((candidate) => candidate.runId === run.runId);
  if (index >= 0) bucket[index] = run;
  else bucket.push(run);
  ownedTable[at] = bucket;
  return ownedTable;
}
