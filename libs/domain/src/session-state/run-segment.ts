import { buildMarkerRow, deriveJournalOutcome } from '../markers/marker-status.policy.js';
import { buildRecoveredPendingRow, isCheckpointMatch } from '../journal/recovered-pending-row.factory.js';
import { materialiseJournal } from '../journal/journal-output.materialiser.js';
import { mirrorToContext } from '../context/context-rows.projection.js';
import { recoverGatewayTerminalError } from '../journal/gateway-error.recovery.js';
import { summarizeJournal } from '../journal/journal-summary.projection.js';
import { type PendingTurn } from '../journal/journal.types.js';
import { type ShownMarkerStatus } from '../markers/marker-wording.constants.js';
import type { InterruptionCause, MessageRow, ToolCard } from '../messages/message-row.js';
import type { InterruptionRecord, RunRecord } from './session.state.js';
import { rowText } from '../messages/message-text.js';
import { ws } from '../text/whitespace.js';

/** The marker an interrupted run shows, with the index of its row in the rows it was derived into. */
export interface DerivedMarker {
  readonly runId: string;
  readonly cause: InterruptionCause;
  readonly status: ShownMarkerStatus;
  readonly content: string;
  readonly timestamp: number;
  readonly rowIndex: number;
}

export interface RunSegmentInput {
  readonly sessionId: string;
  readonly run: RunRecord;
  readonly interruption: InterruptionRecord;
  /** Rows (and context, cards) before the slot; the segment is appended to them. */
  readonly rows: readonly MessageRow[];
  readonly context: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
}

export interface RunSegment {
  readonly rows: readonly MessageRow[];
  readonly context: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
  readonly marker: DerivedMarker | null;
  /** Index in `rows` of the row standing for the turn's prompt (the recovered row, or the one already showing it). */
  readonly promptIndex: number | null;
}

const asPending = ({ turn }: InterruptionRecord): PendingTurn => ({
  text: turn.text,
  submittedAt: turn.submittedAt,
  attachments: turn.attachments,
  source: turn.source,
});

/** §4.3: the prompt is already the transcript's tail (a checkpoint match, or a user row with its text). */
function promptIsTail(rows: readonly MessageRow[], pending: PendingTurn): boolean {
  const last = rows.at(-1);
  return last !== undefined && (isCheckpointMatch(last, pending) || (last.role === 'user' && ws(rowText(last)) === ws(pending.text)));
}

function latestUserWithText(rows: readonly MessageRow[], text: string): number | null {
  const index = rows.findLastIndex((row) => row.role === 'user');
  return index >= 0 && ws(rowText(rows[index])) === ws(text) ? index : null;
}

/**
 * Derives what an interrupted run adds to the transcript, afresh from its journal (§4.3 branch A):
 * a journal that settles the turn (`deriveJournalOutcome`, the one marker rule) gives recovered rows with
 * dedupe and no marker (§3.5); otherwise the recovered
 * user row, the journal output, then a validated gateway error (§3.8) or the marker (§3.4, §3.9).
 */
export function deriveRunSegment(input: RunSegmentInput): RunSegment {
  const { run, interruption } = input;
  const pending = asPending(interruption);
  const journal = summarizeJournal(run.runId, run.journal);
  const recoveredRow = buildRecoveredPendingRow(pending);
  const fallbackTimestamp = Math.trunc(interruption.detectedAt);
  let rows: readonly MessageRow[] = input.rows;
  const outcome = deriveJournalOutcome(journal, interruption.abandoned);
  const completed = outcome === 'settled';
  const tail = promptIsTail(rows, pending) ? rows.length - 1 : null;
  const shownPrompt = completed ? (tail ?? latestUserWithText(rows, pending.text)) : tail;
  const appendPrompt = shownPrompt === null;
  // Without a settling journal the prompt reaches the model even when the display already shows it (§4.3).
  const context =
    appendPrompt || !completed ? mirrorToContext(input.context, rows, recoveredRow) : input.context;
  if (appendPrompt) rows = [...rows, recoveredRow];
  const promptIndex = shownPrompt ?? rows.length - 1;
  const output = materialiseJournal({
    runId: run.runId,
    events: journal.events,
    rows,
    context,
    toolCards: input.toolCards,
    dedupeExisting: completed,
    pending,
    fallbackTimestamp,
  });
  if (completed) return { ...output, marker: null, promptIndex };
  const gateway = recoverGatewayTerminalError({
    sessionId: input.sessionId,
    runId: run.runId,
    events: journal.events,
    rows: output.rows,
    pending,
  });
  if (gateway.recovered) return { ...output, rows: gateway.rows, marker: null, promptIndex };
  const status: ShownMarkerStatus = outcome;
  const markerRow = buildMarkerRow({ cause: interruption.cause, status, timestamp: interruption.detectedAt });
  const marker: DerivedMarker = {
    runId: run.runId,
    cause: interruption.cause,
    status,
    content: typeof markerRow.content === 'string' ? markerRow.content : '',
    timestamp: markerRow.timestamp ?? fallbackTimestamp,
    rowIndex: output.rows.length,
  };
  return { ...output, rows: [...output.rows, markerRow], marker, promptIndex };
}
