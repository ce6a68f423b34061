import { attachApiContentFromState } from '../transcript-merge/api-content.prepass.js';
import { keyRow } from '../transcript-merge/comparison-keys.builder.js';
import { mirrorTextOf } from '../transcript-merge/native-image.mirror.js';
import { sidecarOwnsInterruptedTurn } from '../transcript-merge/session-messages.merge.js';
import type { MessageRow, StateRow } from '../messages/message-row.js';
import { filedKeys, factsOf } from './fix-point.keys.js';
import { FACT_SAFE10, hasNoMeta, isUserOrAssistant, max, rowIdOf, takesPartInPrepass } from './fix-point.rows.js';
import { apiContentOf, stableIdOf, timestampOf } from '../transcript-merge/row-fields.normalizer.js';
import { hasToolCalls } from '../messages/message-row.js';
import { journalSize } from '../journal/journal-chunks.js';
import { isMultipartUser } from '../session-state/prompt-mirror.js';
import { isRunSlot, storedRunOf, type CommittedEntry, type SessionState } from '../session-state/session.state.js';
import { expandCommitted } from '../session-state/transcript.expand.js';

/** What a fix point records of the S a commit fixed (fix-point.ts): slot stamps, tail flags, and `fixPointAfter`. */

/**
 * What a run slot of S derived from at a fix point: `[runId, journal size, abandoned, superseded]`
 * (size -1: no interruption record). A slot whose stamp still matches derives the same rows.
 */
export type SlotStamp = readonly [runId: string, journalSize: number, abandoned: boolean, superseded: boolean];

/**
 * What the last fix point left, so the next commit can prove its merge adds no row and only attaches provider bytes
 * to the rows S gained since (fix-point.ts). Kept beside the state, never in it (fix-point.proof.ts).
 */
export interface FixPoint {
  /** Length of S at the fix point. */
  readonly committedLength: number;
  /** Rows of the expansion of that S: the sidecar list the merge saw (run slots derived). */
  readonly expandedLength: number;
  /** `observations` at the fix point: state rows observed later are new to the next one. */
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
   * The state rows merged at the fix point, in rowId order, stride 4: `rowId, facts, visible-key hash, holder position`
   * (facts: FACT_* bits of what the expansion holds for the row; holder position: the last expansion row
   * known to hold its visible key, -1 if none known).
   */
  readonly rows: readonly number[];
}

export interface ReachedFixPoint {
  readonly committed: readonly CommittedEntry[];
  /** State rows that became committed rows, in order. */
  readonly adopted: readonly MessageRow[];
  /** What the next commit needs to prove its own fix point; null: it runs the full merge. */
  readonly fixPoint: FixPoint | null;
}

export const EXPAND = { withContext: false, withPending: false } as const;

export function stampOf(state: SessionState, runId: string): SlotStamp {
  const run = storedRunOf(state, runId);
  const interruption = run?.interruption ?? null;
  if (run === undefined || interruption === null) return [runId, -1, false, false];
  return [runId, journalSize(run.journal), interruption.abandoned, interruption.superseded];
}

export const slotStamps = (state: SessionState, entries: readonly CommittedEntry[]): SlotStamp[] =>
  entries.flatMap((entry) => (isRunSlot(entry) ? [stampOf(state, entry.slot)] : []));

export const sameStamp = (a: SlotStamp, b: SlotStamp): boolean => a[1] === b[1] && a[2] === b[2] && a[3] === b[3];

/** From the end of `rows` back to its last user row, an assistant row is partial (`before`: the rows before). */
export function tailPartialOf(rows: readonly MessageRow[], before: boolean): boolean {
  for (let index = rows.length - 1; index >= 0; index -= 1) {
    const row = rows[index];
    if (row.role === 'user') return false;
    if (row.role === 'assistant' && row.partial === true) return true;
  }
  return before;
}

/** R14 (`sidecarOwnsInterruptedTurn`) of X0 ++ rows, from the flags of X0. */
export function ownsTurnAfter(fixPoint: FixPoint, rows: readonly MessageRow[]): boolean {
  const error = rows.findLastIndex((row) => row.role === 'assistant' && row.error === true);
  if (error < 0) return fixPoint.ownsTurn && !rows.some(isUserOrAssistant);
  if (rows.slice(error + 1).some(isUserOrAssistant)) return false;
  for (let index = error - 1; index >= 0; index -= 1) {
    const row = rows[index];
    if (row.role === 'user') return false;
    if (row.role === 'assistant' && row.partial === true) return true;
  }
  return fixPoint.tailPartial;
}

/**
 * The fix point of a fully merged S: its expansion after the pre-pass, and the facts of every state row merged.
 * Null (the next commit merges in full) when the pre-pass would still change a committed row, or when a row makes
 * conditions 2 or 4 unprovable (an untimed row, display metadata, a row id carried without provider bytes).
 */
export function fixPointAfter(state: SessionState, stateRows: readonly StateRow[]): FixPoint | null {
  // A multipart user row may mirror a prompt and be left out of the merge (prompt-mirror.ts): not proven.
  if (stateRows.some(isMultipartUser)) return null;
  const expansion = expandCommitted(state, EXPAND);
  const rows = stateRows.length === 0 ? expansion.rows : attachApiContentFromState(expansion.rows, stateRows);
  let sidecarMaxTs: number | null = null;
  let maxRowId = -1;
  let richWithoutApi = false;
  const carriers = new Map<number, MessageRow | null>();
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index];
    if (row !== expansion.rows[index] && !isRunSlot(state.committed[expansion.origins[index]])) return null;
    const ts = timestampOf(row);
    if (ts === null && takesPartInPrepass(row)) return null;
    sidecarMaxTs = max(sidecarMaxTs, ts);
    const rowId = rowIdOf(row);
    if (rowId !== null) {
      maxRowId = Math.max(maxRowId, rowId);
      carriers.set(rowId, carriers.has(rowId) ? null : row);
    }
    if (mirrorTextOf(row) !== null && apiContentOf(row) === null) richWithoutApi = true;
  }
  const keys = filedKeys(rows);
  let maxTs = sidecarMaxTs;
  const facts: number[] = [];
  for (const row of stateRows) {
    const ts = timestampOf(row);
    if (ts === null && takesPartInPrepass(row)) return null;
    maxTs = max(maxTs, ts);
    const api = apiContentOf(row);
    if (!hasNoMeta(row) || (api !== null && richWithoutApi && row.role === 'user')) return null;
    const carrier = carriers.get(row.rowId);
    const carrierApi = carrier == null ? null : apiContentOf(carrier);
    if (carrier != null && carrierApi === null && api !== null) return null;
    const conflict = carrierApi !== null && api !== null && carrierApi !== api;
    const { mask, hash, holder } = factsOf(keyRow(row, 'state'), keys, sidecarMaxTs);
    const safe = stableIdOf(row) === null && !hasToolCalls(row) && !conflict ? FACT_SAFE10 : 0;
    facts.push(row.rowId, mask | safe, hash, holder);
  }
  return {
    committedLength: state.committed.length,
    expandedLength: rows.length,
    observation: state.observations,
    slots: slotStamps(state, state.committed),
    maxTs,
    sidecarMaxTs,
    maxRowId,
    ownsTurn: rows.length > 0 && sidecarOwnsInterruptedTurn(rows),
    tailPartial: tailPartialOf(rows, false),
    rows: facts,
  };
}
