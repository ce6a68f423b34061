import type pg from 'pg';
import { decide, DomainError, evolve, type SessionCommand, type SessionState } from '#domain';
import { ConcurrencyError, type EventStore } from '#event-store';
import { findRecoveryCandidates, findContinuedSessions, type SessionViews } from '#read-models';
import type { SessionWriter } from '#session-commands';
import { type LivenessRegistry } from './liveness-registry.js';
import { decideRecovery, type RecoveryDecision } from './recovery-policy.js';

/** The write path the decisions go through (#session-commands): appends at `expectedVersion` or throws ConcurrencyError. */
export type DecisionWriter = Pick<SessionWriter, 'write'>;

export interface SweepResult {
  readonly examined: number;
  readonly interrupted: number;
  readonly recoveredFromAgentStore: number;
  readonly gaveUp: number;
  /** Sessions whose decision could not be appended (nothing was stored for them). */
  readonly failed: number;
}

export interface SupervisorOptions {
  /** Real clock, epoch seconds. */
  readonly clock?: () => number;
  readonly onDecision?: (decision: RecoveryDecision, sessionId: string) => void;
  readonly onError?: (error: unknown, sessionId: string | null) => void;
  /**
   * A decision the policy proposed and the domain refused (its guard disagreed): reported, never silent, so a
   * policy/decider disagreement that would repeat on every sweep is visible (a log line and a counter).
   */
  readonly onRefused?: (decision: RecoveryDecision, error: DomainError, sessionId: string) => void;
}

/** A sweep's requested `now` may only be later than the clock ("decide as of then"). */
export class SweepTimeError extends Error {
  readonly code = 'VALIDATION_FAILED';
  readonly errors: readonly { path: string; message: string }[];
  constructor(requested: number, clock: number) {
    super(`now ${requested} is earlier than the clock (${clock}); a sweep may only decide as of a later time.`);
    this.name = 'SweepTimeError';
    this.errors = [{ path: 'now', message: 'must not be earlier than the current time' }];
  }
}

/** A lost race is re-decided on the new state; a stream this busy is left for the next sweep. */
const MAX_ATTEMPTS = 5;
/** Released or expired leases are kept this long for the cause classification, then purged. */
const LEASE_RETENTION_SECONDS = 7 * 86_400;

const COMMAND_OF: { readonly [T in RecoveryDecision['type']]: SessionCommand['type'] } = {
  TurnInterrupted: 'InterruptTurn',
  TurnRecoveredFromAgentStore: 'RecoverTurnFromAgentStore',
  JournalRecoveryAbandoned: 'AbandonJournalRecovery',
};

/**
 * The decisions the domain still accepts on `state`, in order (its guards revalidate the policy's view);
 * each refusal goes to `onRefused`.
 */
function accepted(
  state: SessionState,
  decisions: readonly RecoveryDecision[],
  onRefused: (decision: RecoveryDecision, error: DomainError) => void,
): RecoveryDecision[] {
  const out: RecoveryDecision[] = [];
  let current = state;
  for (const decision of decisions) {
    try {
      const result = decide({ type: COMMAND_OF[decision.type], data: decision.data } as SessionCommand, current);
      for (const event of result.events) {
        out.push(event as RecoveryDecision);
        current = evolve(current, event);
      }
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      onRefused(decision, error);
    }
  }
  return out;
}

/**
 * The recovery supervisor: the only code that reads the clock and the liveness registry. Each sweep folds
 * every candidate session, asks the pure policy, and appends its decisions with the version they were
 * made on, so replicas sweeping at once produce one decision (the loser re-loads and finds nothing to do).
 */
export class RecoverySupervisor {
  private timer: NodeJS.Timeout | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly clock: () => number;

  constructor(
    private readonly pool: pg.Pool,
    /** The log, for the sessions the async index has not projected yet (the candidates' tail). */
    private readonly store: Pick<EventStore, 'readPositions'>,
    private readonly registry: LivenessRegistry,
    private readonly views: Pick<SessionViews, 'view'>,
    private readonly writer: DecisionWriter,
    private readonly options: SupervisorOptions = {},
  ) {
    this.clock = options.clock ?? (() => Date.now() / 1000);
  }

  start(intervalMs: number): void {
    if (intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.options.onError?.(error, null));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.queue.catch(() => undefined);
  }

  /**
   * One sweep; sweeps of this process run one after another. `now` = max(clock, requested); a requested
   * time earlier than the clock is refused before anything is decided.
   */
  sweep(requestedNow?: number): Promise<SweepResult> {
    const clock = this.clock();
    if (requestedNow !== undefined && requestedNow < clock) return Promise.reject(new SweepTimeError(requestedNow, clock));
    const run = this.queue.then(() => this.run(Math.max(this.clock(), requestedNow ?? 0)));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(now: number): Promise<SweepResult> {
    const tally = { examined: 0, interrupted: 0, recoveredFromAgentStore: 0, gaveUp: 0, failed: 0 };
    const candidates = await findRecoveryCandidates(this.pool, this.store);
    const continued = await findContinuedSessions(this.pool, candidates);
    for (const sessionId of candidates) {
      try {
        const appended = await this.examine(sessionId, now, continued.has(sessionId));
        if (appended === null) continue;
        tally.examined += 1;
        for (const decision of appended) {
          if (decision.type === 'TurnInterrupted') tally.interrupted += 1;
          else if (decision.type === 'TurnRecoveredFromAgentStore') tally.recoveredFromAgentStore += 1;
          else tally.gaveUp += 1;
          this.options.onDecision?.(decision, sessionId);
        }
      } catch (error) {
        tally.examined += 1;
        tally.failed += 1;
        this.options.onError?.(error, sessionId);
      }
    }
    await this.registry.purge(this.clock(), LEASE_RETENTION_SECONDS).catch((error: unknown) => this.options.onError?.(error, null));
    return tally;
  }

  /** Decides one session; returns the decisions appended (null: the session does not exist). */
  private async examine(sessionId: string, now: number, hasContinuationChild: boolean): Promise<RecoveryDecision[] | null> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      // One head read and one fold: the view and the state it was rendered from, at the same version.
      const { version, view, exists, state } = await this.views.view(sessionId);
      if (!exists) return null;
      const runId = state.pending?.runId;
      const liveness = runId ? await this.registry.facts(runId) : null;
      const { decisions } = decideRecovery({ state, view, liveness, hasContinuationChild, now });
      if (decisions.length === 0) return [];
      let appended: RecoveryDecision[] = [];
      let refused: [RecoveryDecision, DomainError][] = [];
      try {
        const result = await this.writer.write(
          sessionId,
          (current) => {
            refused = [];
            appended = accepted(current.state, decisions, (decision, error) => refused.push([decision, error]));
            return { events: appended };
          },
          { expectedVersion: version },
        );
        // Reported once the write went through at this version (a lost race re-decides instead).
        for (const [decision, error] of refused) this.options.onRefused?.(decision, error, sessionId);
        return result.appended > 0 ? appended : [];
      } catch (error) {
        // The stream moved on (another replica decided, or a new event arrived): re-load and re-check;
        // the cached state stays valid, the next view folds only the new tail.
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
    return [];
  }
}
