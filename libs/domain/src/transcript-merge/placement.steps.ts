import { placeChronologically } from './chronological.insert.js';
import { dedupKeyOf, contentKeyOf } from './comparison-keys.builder.js';
import { keyIndexHas } from './key.index.js';
import { checkpointConsumed, withinSidecarRange, type MergeContext, type StateCandidate } from './merge.context.js';
import { rememberKeys, seenKeys } from './merge.indexes.js';
import { hasToolCalls } from '../messages/message-row.js';
import type { LadderStep } from './replay.steps.js';
import { appendSlot, slotOf } from './timeline.list.js';

/**
 * Ladder steps 10–11 (reference §2.3 C.4): a row the sidecar does not hold. Inside the sidecar's
 * time range most are assumed observed already and dropped (a documented lossy behaviour, §2.7);
 * missing user prompts and re-issued tool calls go to their chronological slot; the rest is appended.
 */

/** Inserts at the chronological slot; a refused insertion (R8) drops the row. Either way it is decided. */
function insertOrDrop(context: MergeContext, candidate: StateCandidate): boolean {
  const slot = slotOf(candidate.keyed.row);
  if (placeChronologically(context.timeline, slot)) rememberKeys(context, candidate.keyed, slot);
  return true;
}

/** Step 10, R5–R8. Rows with a stable id, no timestamp, or a row-id conflict go on to step 11. */
export const inRangeStateOnly: LadderStep = (context, candidate) => {
  const { keyed } = candidate;
  if (keyed.idKeyed || candidate.rowIdConflict || !withinSidecarRange(context, keyed.ts)) return false;
  const seen = seenKeys(context);
  const contentSeen = keyIndexHas(seen.contentKeys, contentKeyOf(keyed));
  const postEditReply =
    context.watermark !== null &&
    keyed.ts === context.watermark &&
    checkpointConsumed(context) &&
    keyed.row.role !== 'user' &&
    !contentSeen;
  if (postEditReply) return false;
  if (hasToolCalls(keyed.row)) {
    const sameTextOtherCalls = contentSeen && !keyIndexHas(seen.dedupKeys, dedupKeyOf(keyed));
    return sameTextOtherCalls ? insertOrDrop(context, candidate) : true;
  }
  if (keyed.row.role === 'user' && !contentSeen) return insertOrDrop(context, candidate);
  return true;
};

/** Step 11: append after the tail, remembering its keys so later duplicates are caught. */
export const appendAtTail: LadderStep = (context, candidate) => {
  const slot = slotOf(candidate.keyed.row);
  appendSlot(context.timeline, slot);
  rememberKeys(context, candidate.keyed, slot);
  return true;
};
