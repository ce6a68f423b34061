import type { MessageRow } from '../messages/message-row.js';
import type { Transient } from '../session-state/transient.js';
import type { TurnPrompt } from '../session-state/prompt-mirror.js';
import type { CommittedEntry, SessionState } from '../session-state/session.state.js';
import { effectiveStateRows } from '../session-state/state-rows.js';
import { expandCommitted } from '../session-state/transcript.expand.js';
import { collapseMerged, mergeWithSources } from '../session-state/transcript.merge.js';
import { fastFixPoint } from './fix-point.fast.js';
import { EXPAND, fixPointAfter, type ReachedFixPoint } from './fix-point.record.js';
import { recordProof } from './fix-point.proof.js';

/**
 * The fast path of a commit: how a commit fixes the merged display as the new S, its FIX POINT, in one function
 * (`reachFixPoint`).
 *
 * The reference of a fix point is the full merge: S' = collapse(merge(expand(S), T)) (reference §2, collapsed back
 * into S with its run slots). It costs a walk of the whole transcript, so a commit first tries `fastFixPoint`,
 * which returns S' only when it can PROVE what the full merge returns, from what the previous fix point recorded
 * (`FixPoint`, kept beside the state: fix-point.proof.ts) and the rows added since; anything it cannot prove runs
 * the full merge. `evolveAll(..., { alwaysMerge: true })` always runs the full merge: the property test checks
 * both give the same state.
 *
 * Why the proof holds. Let X = X0 ++ A be the expansion now (X0: the one the previous fix point recorded, A: what
 * S gained since), T = T0 ++ N the state rows the merge sees (T0: the ones the previous fix point merged,
 * unchanged and still all included; N: rows new to the merge, all sorting after T0). The fast path requires:
 * 1. X0 is unchanged: S only gained entries at its end, every run slot of S0 derives what it derived (same
 *    journal size, abandoned and superseded flags), and a run slot in A does not re-derive an earlier row.
 * 2. The §2.2 pre-pass splits in two: every row of A and N has a finite timestamp whose whole second is later
 *    than any row of X0 and T0, no stable id, A rows carry no row id, N rows carry row ids no row of X carries,
 *    and X0/T0 have no untimed row. Then every tier group (stable id, row id, exact time, same second,
 *    content-only with an untimed side) holds only old rows or only new rows, so the pre-pass attaches to X0
 *    what it attached at the previous fix point (nothing new: that one checked it, or baked it) and to A
 *    what `attachApiContentFromState(A, N)` attaches.
 * 3. No ladder step (§2.3 C.4) inserts a row. A row with R14 (the sidecar owns an interrupted turn) skips the
 *    ladder. Otherwise every row of T gets one of three certificates, each depending on the row and on X only:
 *    - step ≤ 8: X holds its dedup key (step 7 drops it), or its merge key and it is in the sidecar's
 *      time range (step 8 drops it). Steps before only drop too. It never reaches the budget of step 9.
 *    - step 10: in range, no stable id, no tool calls, no possible row-id conflict, and a user row's content
 *      key is in X (else a user row is inserted), and it is not a post-edit reply (W absent, its timestamp
 *      is not W, or its content key is in X): step 10 drops it if it gets there.
 *    - step 9: X holds its visible key at positions ≥ its index i in T in greater number than the rows
 *      before it that may consume that budget: the replay pointer has advanced at most once per earlier row,
 *      so replays consumed only holders before position i, and step 9 consumes one holder per earlier row
 *      whose visible key hashes the same, or which has no holder of its own and may match it fuzzily (§2.1).
 *    The facts behind them (which keys X holds, the hash of the visible key, the last holder) only grow as X grows by
 *    appends, so they are recorded per row at a fix point and only the rows of N are keyed against A afterwards.
 * 4. Nothing else changes a row of X: no state row carries display metadata to backfill (R13), and neither
 *    the native-image mirror (step 1) nor the row-id fast path (step 3) can attach provider bytes (no rich row
 *    of A; a row id carried by X is carried with the state row's provider bytes).
 * 5. No state row is a multipart user row: such a row may mirror a prompt of S and be left out of the merge
 *    (prompt-mirror.ts), which the facts above do not model.
 * Under 1–5 the merge returns X with the pre-pass attachments, so S' is S with A's rows attached. The parts of
 * the proof live in fix-point.*.ts: row facts (rows), key facts (keys), what a fix point records (record),
 * condition 3 (ladder), the fast path itself (fast) and where the fix point is kept (proof).
 */

/**
 * The fix point of a commit: the proven fast result, else the full merge (always the full merge with `alwaysMerge`).
 * `landing`: the pending turn the commit lands, whose agent mirror is not adopted (prompt-mirror.ts). The fast
 * path writes the arrays `transient` owns in place (fix-point.fast.ts). Records, beside `state`, the fix point
 * its next commit proves from.
 */
export function reachFixPoint(state: SessionState, transient: Transient, landing: TurnPrompt | null = null): FixPointDisplay {
  const result = (transient.alwaysMerge ? null : fastFixPoint(state, transient)) ?? fullMergeFixPoint(state, landing);
  // The facts of a fix point are built for this state alone: the next commit of this fold may extend them in place.
  if (result.fixPoint !== null) transient.adopt(result.fixPoint.rows);
  recordProof(state, result.fixPoint);
  return { committed: result.committed, adopted: result.adopted };
}

function fullMergeFixPoint(state: SessionState, landing: TurnPrompt | null): ReachedFixPoint {
  const stateRows = effectiveStateRows(state.stateRows, state.pending);
  const expansion = expandCommitted(state, EXPAND);
  const merged = mergeWithSources(expansion, stateRows, state, landing);
  const { committed, adopted } = collapseMerged(state.committed, expansion, merged);
  return { committed, adopted, fixPoint: fixPointAfter({ ...state, committed }, stateRows) };
}

/** The display a commit fixes at its fix point: the new S, and the state rows that became committed rows, in order. */
export interface FixPointDisplay {
  readonly committed: readonly CommittedEntry[];
  readonly adopted: readonly MessageRow[];
}
