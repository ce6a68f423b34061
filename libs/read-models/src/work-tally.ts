/**
 * A background pass's own time: the synchronous work done on its behalf (folds, renders, building rows), in ms,
 * added to by each piece as it runs. Its awaits (database reads, yields) are not in it: while a pass waits, the
 * process serves requests, and a wall-clock span around an await would charge the pass for their CPU.
 */
export interface WorkTally {
  ms: number;
}

/** Runs synchronous work, adding its duration to the tally when there is one. */
export function tallied<T>(tally: WorkTally | undefined, work: () => T): T {
  if (tally === undefined) return work();
  const started = performance.now();
  try {
    return work();
  } finally {
    tally.ms += performance.now() - started;
  }
}
