import type { InterruptionCause, JournalEvent, MessageRow, StateRow } from '../messages/message-row.js';
import { flattenJournal, type JournalChunks, type SeqRanges } from '../journal/journal-chunks.js';
import { emptyRunTable, findRun, type RunTable } from './run-table.js';

/**
 * The fold state of one session. It holds the raw inputs, not the merged transcript: `render` merges, so a
 * token event costs a push. It is plain JSON (a snapshot is `JSON.stringify(state)`), and it is never
 * mutated once returned by `evolve`. What the commit fast path proves with is not part of it (fix-point.proof.ts).
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
  /** Sorted by seq; the first delivery of a seq wins. Empty once archived (`archivedSeqs`). */
  readonly journal: readonly JournalEvent[];
  /**
   * Set when the run settled without a decision: its rows are committed and nothing derives from its journal
   * any more, so the state keeps only the seqs recorded (a late repeat is still a duplicate); the events stay
   * in the stream, between the versions of `journalSpan` (the journal read takes them from there). A snapshot
   * of a long session is then its transcript, not every token it streamed.
   */
  readonly archivedSeqs: SeqRanges | null;
  /** Stream versions (`SessionState.version`) of the run's first and last `JournalEventRecorded`, if any. */
  readonly journalSpan: readonly [first: number, last: number] | null;
  readonly submitted: boolean;
  readonly outcome: RunOutcome | null;
  readonly interruption: InterruptionRecord | null;
}

/** A run as the state stores it: the journal in chunks, so a token appends without copying the journal. */
export interface StoredRun extends Omit<RunRecord, 'journal'> {
  readonly journal: JournalChunks;
}

export interface SessionState {
  /** Events folded: the stream version this state stands at (a fold from the stream's start). */
  readonly version: number;
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
  readonly watermark: number | null;
  readonly boundary: number | null;
  readonly pending: PendingTurnView | null;
  /** Every run that has a submission, a journal or a decision (run-table.ts). */
  readonly runs: RunTable<StoredRun>;
  /** Run ids of `TurnInterrupted` decisions, in decision order: the marker list order. */
  readonly interruptedRuns: readonly string[];
  /** The run of the latest submitted or decided turn. */
  readonly latestRunId: string | null;
  /** Set by `SessionErased`: the content is gone for good and the session takes nothing more. */
  readonly erased: ErasureRecord | null;
}

export interface ErasureRecord {
  readonly at: number;
  readonly reason: string;
  readonly requestedBy: string;
  readonly dataKeyId: string | null;
  readonly droppedContent?: readonly (readonly [number, number])[];
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
  archivedSeqs: null,
  journalSpan: null,
  submitted: false,
  outcome: null,
  interruption: null,
});

export function initialSessionState(): SessionState {
  return {
    version: 0,
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
    watermark: null,
    boundary: null,
    pending: null,
    runs: emptyRunTable(),
    interruptedRuns: [],
    latestRunId: null,
    erased: null,
  };
}
