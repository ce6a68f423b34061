/**
 * What the liveness registry knows about one run, and the pure rules that read it at a given `now`
 * (reference §1.6 STREAMS ∪ ACTIVE_RUNS, §4.6 the 60 s `cancelling` allowance). Times are epoch seconds.
 */
export type LeasePhase = 'starting' | 'running' | 'cancelling';

export const LEASE_PHASES: readonly LeasePhase[] = ['starting', 'running', 'cancelling'];

/** A lease cancelling for longer than this no longer counts as alive (reference §4.6). */
export const CANCELLING_TIMEOUT_SECONDS = 60;

export interface LeaseFact {
  readonly hostId: string;
  readonly phase: LeasePhase;
  readonly expiresAt: number;
  /** First write with the current phase. */
  readonly phaseSince: number;
  /** The worker unregistered the run (or its host rebooted); null while registered. */
  readonly releasedAt: number | null;
}

export interface StreamFact {
  readonly openedAt: number;
}

export interface LivenessFacts {
  readonly runId: string;
  readonly stream: StreamFact | null;
  /** The run's latest lease, released or not. */
  readonly lease: LeaseFact | null;
  /** Latest boot of the host named in that lease. */
  readonly hostStartedAt: number | null;
}

/**
 * - `alive`: registered, unexpired, not cancelling for over 60 s;
 * - `stale_cancelling`: still registered and unexpired, but cancelling for over 60 s — listed, not alive;
 * - `expired` / `released` / `absent`: the registry no longer lists the run.
 */
export type LeaseStatus = 'alive' | 'stale_cancelling' | 'expired' | 'released' | 'absent';

export function leaseStatus(lease: LeaseFact | null, now: number): LeaseStatus {
  if (lease === null) return 'absent';
  if (lease.releasedAt !== null) return 'released';
  if (lease.expiresAt <= now) return 'expired';
  if (lease.phase === 'cancelling' && now - lease.phaseSince > CANCELLING_TIMEOUT_SECONDS) return 'stale_cancelling';
  return 'alive';
}

/** An open live stream, or a lease that still counts. */
export function isRunAlive(facts: LivenessFacts, now: number): boolean {
  return facts.stream !== null || leaseStatus(facts.lease, now) === 'alive';
}

export const noLiveness = (runId: string): LivenessFacts => ({ runId, stream: null, lease: null, hostStartedAt: null });
