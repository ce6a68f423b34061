import type { InterruptionCause, JournalEvent, MessageRow, StateRow } from '../messages/message-row.js';

/**
 * The fold state of one session. It holds the raw inputs, not the merged transcript: `render` merges, so a
 * token event costs a push. It is plain JSON (a snapshot is `JSON.stringify(state)`), and it is never
 * mutated once returned by `evolve`.
 */
export interface PendingTurnView {
  readonly runId: string;
  readonly text: string;
  readonly attachments: readonly unknown[];
  readonly source: string | null;
  readonly submittedAt: number;
}

/**
 * Stands in the committed list S for the rows an interrupted run derives (recovered user row, journal rows,
 * gateway error, marker): they are re-derived on every render, so a late journal event re-derives them in
 * place. `limit` keeps only the first rows, after a truncation cut into them.
 */
export interface RunSlot {
  readonly slot: string;
  readonly limit?: number;
}

export type CommittedEntry = MessageRow | RunSlot;

export const isRunSlot = (entry: CommittedEntry): entry is RunSlot => 'slot' in entry;

export interface InterruptionRecord {
  readonly cause: InterruptionCause;
  readonly detectedAt: number;
  readonly evidence: { readonly [key: string]: unknown };
  /** The pending turn the decision took over. */
  readonly turn: PendingTurnView;
  readonly abandoned: boolean;
  /** The run's own worker settled it afterwards (§3.10). */
  readonly superseded: boolean;
}

export type RunOutcome = 'settled' | 'interrupted' | 'recovered_from_agent_store';

export interface RunRecord {
  readonly runId: string;
  /** Sorted by seq; the first delivery of a seq wins. */
  readonly journal: readonly JournalEvent[];
  readonly submitted: boolean;
  readonly outcome: RunOutcome | null;
  readonly interruption: InterruptionRecord | null;
}

/** What the last commit fix merged: the next one may skip the merge when nothing new could show (see commit-fix). */
export interface FixPoint {
  /** Length of S right after the fix. */
  readonly committedLength: number;
  /** `observations` at the fix: state rows observed later are new to the next fix. */
  readonly observation: number;
  /** The pending turn's submittedAt the fix held rows back from, if any. */
  readonly heldAfter: number | null;
}

export interface SessionState {
  readonly sessionId: string | null;
  readonly title: string | null;
  readonly parentSessionId: string | null;
  readonly createdAt: number | null;
  readonly archived: boolean;
  readonly childSessionId: string | null;
  /** Max of every event time field seen. */
  readonly lastActivityAt: number | null;
  /** S: the committed display list (UI-owned rows, settled turns, rows fixed by a commit, run slots). */
  readonly committed: readonly CommittedEntry[];
  /** T: latest observation per rowId, sorted by rowId; active rows are stored without `active`. */
  readonly stateRows: readonly StateRow[];
  /** Parallel to `stateRows`: the `observations` count when each row last changed. */
  readonly stateRowSeen: readonly number[];
  /** Count of StateRowsObserved events folded. */
  readonly observations: number;
  readonly lastFix: FixPoint | null;
  readonly watermark: number | null;
  readonly boundary: number | null;
  readonly pending: PendingTurnView | null;
  /** Keyed by `runKey(runId)` so no run id can hit an Object prototype key. */
  readonly runs: { readonly [key: string]: RunRecord };
  /** Run ids of `TurnInterrupted` decisions, in decision order: the marker list order. */
  readonly interruptedRuns: readonly string[];
  /** The run of the latest submitted or decided turn. */
  readonly latestRunId: string | null;
}

export const runKey = (runId: string): string => `run:${runId}`;

export const runOf = (state: SessionState, runId: string): RunRecord | undefined =>
  Object.hasOwn(state.runs, runKey(runId)) ? state.runs[runKey(runId)] : undefined;

export const emptyRun = (runId: string): RunRecord => ({
  runId,
  journal: [],
  submitted: false,
  outcome: null,
  interruption: null,
});

export function initialSessionState(): SessionState {
  return {
    sessionId: null,
    title: null,
    parentSessionId: null,
    createdAt: null,
    archived: false,
    childSessionId: null,
    lastActivityAt: null,
    committed: [],
    stateRows: [],
    stateRowSeen: [],
    observations: 0,
    lastFix: null,
    watermark: null,
    boundary: null,
    pending: null,
    runs: {},
    interruptedRuns: [],
    latestRunId: null,
  };
}
