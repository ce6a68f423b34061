import { mergeKeyOf, contentKeyOf } from './comparison-keys.builder.js';
import { watermarkAdvanced, withinSidecarRange, type MergeContext, type StateCandidate } from './merge.context.js';
import { seenKeys } from './merge.indexes.js';
import { keyIndexHas } from './key.index.js';
import type { LadderStep } from './replay.steps.js';

/**
 * Ladder steps 4–6 (reference §2.3 C.4, R9): rows that an intentional shrink (edit, retry, undo,
 * clear, compress) removed must not come back. They only apply when a watermark W is present.
 * W = 0 (the clear sentinel) is present too: any sidecar row newer than 0 makes it "advanced", so
 * step 4 then drops every unknown agent row inside the new sidecar's time range.
 */

const mergeKeySeen = (context: MergeContext, candidate: StateCandidate): boolean =>
  keyIndexHas(seenKeys(context).mergeKeys, mergeKeyOf(candidate.keyed));

const unknownToSidecar = (context: MergeContext, candidate: StateCandidate): boolean =>
  !mergeKeySeen(context, candidate) && !keyIndexHas(seenKeys(context).contentKeys, contentKeyOf(candidate.keyed));

/** Step 4: newer than W with an unseen merge key, while the sidecar has not moved past W (or within its range). */
export const aboveWatermark: LadderStep = (context, candidate) => {
  const { watermark } = context;
  const ts = candidate.keyed.ts;
  if (watermark === null || ts === null || ts <= watermark || mergeKeySeen(context, candidate)) return false;
  return !watermarkAdvanced(context) || withinSidecarRange(context, ts);
};

/** Step 5: older than W, and neither its merge key nor its content key is known: the row was replaced by an edit. */
export const belowWatermarkReplaced: LadderStep = (context, candidate) => {
  const { watermark } = context;
  const ts = candidate.keyed.ts;
  if (watermark === null || ts === null || ts >= watermark) return false;
  return unknownToSidecar(context, candidate);
};

/** Step 6: a user row stamped exactly W that the sidecar does not hold: the pre-edit prompt. */
export const sameSecondEditedUser: LadderStep = (context, candidate) => {
  const { watermark } = context;
  if (watermark === null || candidate.keyed.ts !== watermark || candidate.keyed.row.role !== 'user') return false;
  return unknownToSidecar(context, candidate);
};
