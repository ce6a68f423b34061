import { canSupersedeMarker } from '../journal/index.js';
import { visibleKey } from '../merge/index.js';
import type { MessageRow } from '../messages/message-row.js';
import { deriveRunSegment } from './run-segment.js';
import { isRunSlot, runOf, type FixPoint, type SessionState } from './session.state.js';
import { effectiveStateRows, stateRowInclusion } from './state-rows.js';
import { expandCommitted, UNTRACKED_CONTEXT } from './transcript.expand.js';
import { mergeWithSources, STATE_SOURCE } from './transcript.merge.js';

/**
 * Policies of a commit: whether its merge can be skipped, and whether a late settle may supersede a marker.
 */

/** The rows a run slot derives, as replay targets (derived on their own: a surplus key is harmless). */
function slotRows(state: SessionState, runId: string): readonly MessageRow[] {
  const run = runOf(state, runId);
  if (run?.interruption == null || run.interruption.superseded) return [];
  const segment = deriveRunSegment({
    sessionId: state.sessionId ?? '',
    run,
    interruption: run.interruption,
    rows: [],
    context: UNTRACKED_CONTEXT,
    toolCards: [],
  });
  return segment.rows;
}

const withoutApi = (row: MessageRow): MessageRow => (row.apiContent ? { ...row, apiContent: null } : row);

/**
 * Whether a commit can skip its merge: since the last fix, S only gained rows at its end and every state row that
 * is new to this merge (observed since, or held back then and released now) replays one of those new rows by
 * its visible key (role, whitespace-normalised text with the workspace prefix stripped, tool calls), one for
 * one, with no conflicting provider bytes. Such rows are exactly what the merge drops or skips as replays
 * (§2.5 R1, R4), so the fix would only re-attach api content that render attaches anyway. Anything else
 * (a deactivated or unmatched row) runs the full merge. A run slot offers the rows it derives.
 */
export const fixPointOf = (state: SessionState): FixPoint => ({
  committedLength: state.committed.length,
  observation: state.observations,
  heldAfter: state.pending?.submittedAt ?? null,
});

export function fixWouldChangeNothing(state: SessionState): boolean {
  const fix: FixPoint | null = state.lastFix;
  if (fix === null || fix.committedLength > state.committed.length) return false;
  const fresh = new Map<string, number>();
  const add = (row: MessageRow): void => {
    const key = visibleKey(withoutApi(row), 'sidecar') + (row.apiContent ? `\u0000${row.apiContent}` : '');
    fresh.set(key, (fresh.get(key) ?? 0) + 1);
  };
  for (let index = fix.committedLength; index < state.committed.length; index += 1) {
    const entry = state.committed[index];
    if (isRunSlot(entry)) slotRows(state, entry.slot).forEach(add);
    else add(entry);
  }
  const take = (key: string): boolean => {
    const count = fresh.get(key) ?? 0;
    if (count > 0) fresh.set(key, count - 1);
    return count > 0;
  };
  for (let index = 0; index < state.stateRows.length; index += 1) {
    const row = state.stateRows[index];
    const changed = state.stateRowSeen[index] > fix.observation;
    const released = fix.heldAfter !== null && typeof row.timestamp === 'number' && row.timestamp > fix.heldAfter;
    if (!changed && !released) continue;
    const inclusion = stateRowInclusion(row, state.pending);
    if (inclusion === 'held') continue;
    if (inclusion === 'inactive') {
      if (changed) return false;
      continue;
    }
    const bare = visibleKey(withoutApi(row), 'state');
    if (!(row.apiContent ? take(`${bare}\u0000${row.apiContent}`) || take(bare) : take(bare))) return false;
  }
  return true;
}

/**
 * §3.10: the run's own late settle may replace its marker only while no turn is pending, the marker is this
 * run's and the last row of the display, and the nearest user row before it carries the run's prompt.
 */
export function canSupersede(state: SessionState, runId: string): boolean {
  if (state.pending !== null) return false;
  const interruption = runOf(state, runId)?.interruption;
  if (interruption == null || interruption.superseded) return false;
  const slotIndex = state.committed.findIndex((entry) => isRunSlot(entry) && entry.slot === runId);
  if (slotIndex < 0) return false;
  const expansion = expandCommitted(state, { withContext: false, withPending: false });
  const merged = mergeWithSources(expansion, effectiveStateRows(state.stateRows, null), state);
  const lastSource = merged.sources.at(-1);
  if (lastSource === undefined || lastSource === STATE_SOURCE) return false;
  if (expansion.origins[lastSource] !== slotIndex) return false;
  return canSupersedeMarker(merged.rows, interruption.turn.text);
}
