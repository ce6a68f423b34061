import type { InterruptionCause, JournalEvent, MessageRow, StateRow } from '../messages/message-row.js';
import { flattenJournal, type JournalChunks } from './journal-chunks.js';
import { emptyRunTable, findRun, type RunTable } from './run-table.js';

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

/** A run as readers see it (`runOf`): its journal as one array, sorted by seq. */
export interface RunRecord {
  readonly runId: string;
  /** Sorted by seq; the first delivery of a seq wins. */
  readonly journal: readonly JournalEvent[];
  readonly submitted: boolean;
  readonly outcome: RunOutcome | null;
  readonly interruption: InterruptionRecord | null;
}

/** A run as the state stores it: the journal in chunks, so a token appends without copying the journal. */
export interface StoredRun extends Omit<RunRecord, 'journal'> {
  readonly journal: JournalChunks;
}

/**
 * What a run slot of S derived from at a commit fix: `[runId, journal size, abandoned, superseded]`
 * (size -1: no interruption record). A slot whose stamp still matches derives the same rows.
 */
export type SlotStamp = readonly [runId: string, journalSize: number, abandoned: boolean, superseded: boolean];

/**
 * What the last commit fix left, so the next one can prove its merge adds no row and only attaches provider bytes
 * to the rows S gained since (commit.policy.ts). Plain JSON like the rest of the state.
 */
export interface FixPoint {
  /** Length of S right after the fix. */
  readonly committedLength: number;
  /** Rows of the expansion of that S: the sidecar list the merge saw (run slots derived). */
  readonly expandedLength: number;
  /** `observations` at the fix: state rows observed later are new to the next fix. */
  readonly observation: number;
  /** The run slots of that S. */
  readonly slots: readonly SlotStamp[];
  /** Max finite timestamp over that expansion and the state rows merged with it (null: none). */
  readonly maxTs: number | null;
  /** Max finite timestamp of the expansion alone: the time range of the sidecar (§2.3 "in range"). */
  readonly sidecarMaxTs: number | null;
  /** Max valid rowId an expansion row carries (-1: none). */
  readonly maxRowId: number;
  /** Reference §2.3 C.2 (R14) holds for the expansion: the merge ignores the agent store. */
  readonly ownsTurn: boolean;
  /** From the end of the expansion back to its last user row, an assistant row is `partial`. */
  readonly tailPartial: boolean;
  /**
   * The state rows the fix merged, in rowId order, stride 4: `rowId, facts, visible-key hash, holder position`
   * (facts: FACT_* bits of what the expansion holds for the row; holder position: the last expansion row
   * known to hold its visible key, -1 if none known).
   */
  readonly rows: readonly number[];
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
  /** What the last commit fix recorded for the next one (commit.policy.ts); null: the next one merges in full. */
  readonly lastFix: FixPoint | null;
  readonly watermark: number | null;
  readonly boundary: number | null;
  readonly pending: PendingTurnView | null;
  /** Every run that has a submission, a journal or a decision (run-table.ts). */
  readonly runs: RunTable;
  /** Run ids of `TurnInterrupted` decisions, in decision order: the marker list order. */
  readonly interruptedRuns: readonly string[];
  /** The run of the latest submitted or decided turn. */
  readonly latestRunId: string | null;
}

/** The stored run (journal in chunks): what the fold and the deciders read. */
export const storedRunOf = (state: SessionState, runId: string): StoredRun | undefined => findRun(state.runs, runId);

/** The run with its journal as one array (allocates it: for readers, not for the fold's hot path). */
export function runOf(state: SessionState, runId: string): RunRecord | undefined {
  const run = findRun(state.runs, runId);
  return run === undefined ? undefined : { ...run, journal: flattenJournal(run.journal) };
}

export const emptyRun = (runId: string): StoredRun => ({
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
    runs: emptyRunTable(),
    interruptedRuns: [],
    latestRunId: null,
  };
}
