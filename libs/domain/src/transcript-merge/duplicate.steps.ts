import { mergeKeyOf, dedupKeyOf } from './comparison-keys.builder.js';
import { keyIndexGet } from './key.index.js';
import { backfillInto, probeFor, withinSidecarRange } from './merge.context.js';
import { catalogueOf, seenKeys } from './merge.indexes.js';
import type { LadderStep } from './replay.steps.js';
import { findVisibleEntry } from './visible-key.catalogue.js';

/**
 * Ladder steps 7–9 (reference §2.3 C.4): the row duplicates one the output already holds. Every drop
 * here backfills the kept row's empty display metadata from the dropped one (R13).
 */

/** Step 7, R11: the exact-precision dedup key was seen (sidecar, replayed or added row). */
export const exactDuplicate: LadderStep = (context, candidate) => {
  const holder = keyIndexGet(seenKeys(context).dedupKeys, dedupKeyOf(candidate.keyed));
  if (holder === undefined) return false;
  backfillInto(holder, candidate.keyed.row);
  return true;
};

/**
 * Step 8: within the sidecar's time range with a seen merge key (same second); or a seen stable id,
 * at any time. Judgment call: the id case backfills too, since R13 covers every duplicate drop.
 */
export const seenMergeKey: LadderStep = (context, candidate) => {
  const holder = keyIndexGet(seenKeys(context).mergeKeys, mergeKeyOf(candidate.keyed));
  if (holder === undefined) return false;
  if (!withinSidecarRange(context, candidate.keyed.ts) && !candidate.keyed.idKeyed) return false;
  backfillInto(holder, candidate.keyed.row);
  return true;
};

/**
 * Step 9, R4/R10: a visible duplicate (exact or fuzzy visible key) of a sidecar row, while fewer agent rows have
 * been consumed against that key than the sidecar holds copies of it. The k-th consumed copy is the
 * one backfilled.
 */
export const visibleDuplicateBudget: LadderStep = (context, candidate) => {
  const entry = findVisibleEntry(catalogueOf(context), probeFor(candidate));
  if (entry === null || entry.skips >= entry.holders.length) return false;
  const holder = entry.holders[entry.skips]!;
  entry.skips += 1;
  backfillInto(holder, candidate.keyed.row);
  return true;
};
