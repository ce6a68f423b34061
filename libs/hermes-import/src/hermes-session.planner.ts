import type { JournalEvent, SessionCommand, StateRow } from '#domain';
import { KEY, sidecarRowsToImport } from './hermes-import.keys.js';
import type { Skipped } from './hermes-import.report.js';
import type { SidecarPlan } from './hermes-sidecar.mapper.js';

/** Everything the sources hold for one session. */
export interface SessionInput {
  readonly sidecar: SidecarPlan;
  /** The session's state.db rows in `id` order (valid rows only). */
  readonly stateRows: readonly StateRow[];
  readonly journals: readonly { readonly runId: string; readonly events: readonly JournalEvent[] }[];
  /** The compression child naming this session as its parent, when this is an archived parent. */
  readonly child: { readonly sessionId: string; readonly at: number } | null;
}

/** One command of the import and the source key stored with the events it decides. */
export interface ImportStep {
  readonly key: string;
  readonly command: SessionCommand;
}

const JOURNAL_CHUNK = 1000;

function rowSteps(sidecar: SidecarPlan, stored: ReadonlySet<string>): { steps: ImportStep[]; skipped: readonly Skipped[] } {
  const { rows, truncation, file } = sidecar;
  const record = (from: number, to: number): ImportStep[] =>
    from < to ? [{ key: KEY.rows(from, to, rows), command: { type: 'RecordMessages', data: { rows: rows.slice(from, to) } } }] : [];
  const choice = sidecarRowsToImport(file, rows, stored);
  if (choice.from === null) return { steps: [], skipped: choice.skipped };
  if (truncation === null) return { steps: record(choice.from, rows.length), skipped: [] };
  const truncationKey = KEY.truncation(truncation.keepCount, truncation.at);
  if (choice.from > 0) {
    const skipped = stored.has(truncationKey) ? [] : [{ item: file, reason: 'the truncation watermark changed after its rows were imported; it was not imported' }];
    return { steps: record(choice.from, rows.length), skipped };
  }
  // The rows up to the boundary, the cut (W = B), then the rows committed after it (each user row advances W).
  // A cut stored already (a cleared session: no rows before or after it) is not made again: a truncation always
  // appends, so only its key says it is there.
  const cut: ImportStep[] = stored.has(truncationKey) ? [] : [{ key: truncationKey, command: { type: 'TruncateTranscript', data: truncation } }];
  return { steps: [...record(0, truncation.keepCount), ...cut, ...record(truncation.keepCount, rows.length)], skipped: [] };
}

/**
 * The commands that import one session, in the order the fold needs them: the start, the sidecar rows around
 * the truncation, the pending turn, the agent-store rows, the run journals, and last the archiving of a
 * compression parent. Steps whose source key is stored already are left out; the decider drops the rest of
 * what is already there by its natural keys.
 */
export function planSession(input: SessionInput, stored: ReadonlySet<string>): { steps: ImportStep[]; skipped: readonly Skipped[] } {
  const { sidecar } = input;
  const steps: ImportStep[] = [];
  if (!stored.has(KEY.session)) {
    const data = { sessionId: sidecar.sessionId, title: sidecar.title, parentSessionId: sidecar.parentSessionId, createdAt: sidecar.createdAt };
    steps.push({ key: KEY.session, command: { type: 'StartSession', data } });
  }
  const rows = rowSteps(sidecar, stored);
  steps.push(...rows.steps);
  if (sidecar.pending !== null) steps.push({ key: KEY.pending(sidecar.pending.runId), command: { type: 'SubmitMessage', data: sidecar.pending } });
  if (input.stateRows.length > 0) {
    const ids = input.stateRows.map((row) => row.rowId);
    const stamps = input.stateRows.map((row) => row.timestamp).filter((ts): ts is number => typeof ts === 'number' && ts >= 0);
    const observedAt = stamps.reduce((a, b) => Math.max(a, b), sidecar.updatedAt ?? sidecar.createdAt);
    const data = { rows: input.stateRows, observedAt };
    steps.push({ key: KEY.stateRows(ids[0], ids[ids.length - 1]), command: { type: 'ObserveStateRows', data } });
  }
  for (const { runId, events } of input.journals) {
    for (let i = 0; i < events.length; i += JOURNAL_CHUNK) {
      const chunk = events.slice(i, i + JOURNAL_CHUNK);
      const key = KEY.journal(runId, chunk[0].seq, chunk[chunk.length - 1].seq);
      steps.push({ key, command: { type: 'RecordJournalEvents', data: { runId, events: chunk } } });
    }
  }
  if (sidecar.compressionParent && input.child !== null) {
    const data = { childSessionId: input.child.sessionId, at: input.child.at };
    steps.push({ key: KEY.compressed(input.child.sessionId), command: { type: 'CompressSession', data } });
  }
  return { steps, skipped: rows.skipped };
}
