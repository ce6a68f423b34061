import { canSupersedeMarker } from '../markers/recovered-rows.placement.js';
import { runOf, isRunSlot, type SessionState } from '../session-state/session.state.js';
import { effectiveStateRows } from '../session-state/state-rows.js';
import { expandCommitted } from '../session-state/transcript.expand.js';
import { mergeWithSources, STATE_SOURCE } from '../session-state/transcript.merge.js';

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
