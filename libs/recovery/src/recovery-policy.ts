import {
  markerAwaitsJournal,
  render,
  runOf,
  type InterruptionCause,
  type JournalRecoveryAbandoned,
  type SessionState,
  type SessionView,
  type TurnInterrupted,
  type TurnRecoveredFromAgentStore,
} from '#domain';
import { checkAgentStore } from './agent-store-turn.js';
import { CANCELLING_TIMEOUT_SECONDS, isRunAlive, leaseStatus, type LivenessFacts } from './liveness-facts.js';

/** Registration window: the turn is recorded before its worker registers (reference §4.2 gate 3, #1624). */
export const GRACE_SECONDS = 30;
/** A marker still waiting for its journal this long after detection is given up (shown neutral). */
export const JOURNAL_GIVE_UP_SECONDS = 86_400;

export type RecoveryDecision = TurnInterrupted | TurnRecoveredFromAgentStore | JournalRecoveryAbandoned;

export type SkipReason = 'archived' | 'continuation_child' | 'no_pending_turn' | 'run_alive' | 'grace';

export interface RecoveryInput {
  readonly state: SessionState;
  /** `render(state)`; the supervisor passes the cached view of the same version. */
  readonly view?: SessionView;
  /** Facts about the pending turn's run (null: no pending turn, or nothing known). */
  readonly liveness: LivenessFacts | null;
  /** Another session names this one as its parent (a continuation exists, reference §4.2 gate 2). */
  readonly hasContinuationChild?: boolean;
  /** The sweep's time: every comparison uses it, and it is recorded in the evidence. */
  readonly now: number;
}

export interface RecoveryOutcome {
  readonly decisions: readonly RecoveryDecision[];
  /** Why the pending turn (if any) was left alone; null when it was decided or there is none to skip. */
  readonly skipped: SkipReason | null;
}

function leaseEvidence(facts: LivenessFacts | null, now: number): Record<string, unknown> {
  const lease = facts?.lease ?? null;
  return {
    stream: facts?.stream ?? null,
    lease: lease === null ? null : { ...lease, status: leaseStatus(lease, now) },
    hostStartedAt: facts?.hostStartedAt ?? null,
    cancellingTimeoutSeconds: CANCELLING_TIMEOUT_SECONDS,
  };
}

/**
 * Reference §3.3: the host named in the run's latest lease booted after the turn was submitted →
 * process_restart; the registry still lists the run (a stale `cancelling` lease) → stream_run_split_brain;
 * otherwise lost_worker_bookkeeping; no run id → unknown.
 */
export function classifyCause(runId: string | null, submittedAt: number, facts: LivenessFacts | null, now: number): InterruptionCause {
  if (!runId) return 'unknown';
  const lease = facts?.lease ?? null;
  const hostStartedAt = facts?.hostStartedAt ?? null;
  if (lease !== null && hostStartedAt !== null && submittedAt > 0 && hostStartedAt > submittedAt) return 'process_restart';
  if (leaseStatus(lease, now) === 'stale_cancelling') return 'stream_run_split_brain';
  return 'lost_worker_bookkeeping';
}

function decidePendingTurn(input: RecoveryInput, view: SessionView): RecoveryOutcome {
  const { state, now } = input;
  const pending = state.pending;
  if (pending === null) return { decisions: [], skipped: 'no_pending_turn' };
  const runId = pending.runId || null;
  const facts = runId === null ? null : (input.liveness ?? null);
  if (facts !== null && isRunAlive(facts, now)) return { decisions: [], skipped: 'run_alive' };
  // A missing or zero submittedAt is legacy data: old enough (reference §4.2 gate 3).
  const ageSeconds = pending.submittedAt > 0 ? now - pending.submittedAt : null;
  if (ageSeconds !== null && ageSeconds < GRACE_SECONDS) return { decisions: [], skipped: 'grace' };
  const seen = { now, runId, submittedAt: pending.submittedAt, ageSeconds, graceSeconds: GRACE_SECONDS, ...leaseEvidence(facts, now) };
  if (runId !== null) {
    const agentStore = checkAgentStore(state, view, now);
    if (agentStore.holdsTurn) {
      const { holdsTurn: _holds, ...rows } = agentStore;
      const event: TurnRecoveredFromAgentStore = {
        type: 'TurnRecoveredFromAgentStore',
        data: { runId, detectedAt: now, evidence: { ...seen, agentStore: rows } },
      };
      return { decisions: [event], skipped: null };
    }
  }
  const cause = classifyCause(runId, pending.submittedAt, facts, now);
  const event: TurnInterrupted = { type: 'TurnInterrupted', data: { runId, cause, detectedAt: now, evidence: { ...seen, cause } } };
  return { decisions: [event], skipped: null };
}

/** Markers still `pending_journal` a day after their decision get a `JournalRecoveryAbandoned`. */
function giveUps(state: SessionState, view: SessionView, now: number): JournalRecoveryAbandoned[] {
  const out: JournalRecoveryAbandoned[] = [];
  for (const marker of view.markers) {
    if (marker.status !== 'pending_journal') continue;
    const run = runOf(state, marker.runId);
    const interruption = run?.interruption;
    // The decider's own guard, so a proposal is never refused for disagreeing with it.
    if (!run || !interruption || !markerAwaitsJournal(run)) continue;
    const waited = now - interruption.detectedAt;
    if (waited < JOURNAL_GIVE_UP_SECONDS) continue;
    out.push({
      type: 'JournalRecoveryAbandoned',
      data: {
        runId: marker.runId,
        at: now,
        reason: `journal still pending ${waited} s after detection at ${interruption.detectedAt} (limit ${JOURNAL_GIVE_UP_SECONDS} s)`,
      },
    });
  }
  return out;
}

/**
 * The supervisor's decision for one session at `now`. Pure: the clock and the registries enter as
 * `now` and `liveness`, and every fact used goes into the decision's evidence, so replays never need them.
 */
export function decideRecovery(input: RecoveryInput): RecoveryOutcome {
  const { state, now } = input;
  // Compression parents and sessions with a continuation are never repaired (reference §4.2 gate 2, §4.7).
  if (state.archived) return { decisions: [], skipped: 'archived' };
  if (state.childSessionId !== null || input.hasContinuationChild) return { decisions: [], skipped: 'continuation_child' };
  const view = input.view ?? render(state);
  const turn = decidePendingTurn(input, view);
  const abandoned = giveUps(state, view, now);
  return { decisions: [...turn.decisions, ...abandoned], skipped: turn.skipped };
}
