import { rowsCompatible } from './api-content.prepass.js';
import { visibleKeyOf, sameKey, type VisibleKey } from './comparison-keys.builder.js';
import { keyIndexGet } from './key.index.js';
import { adoptDuplicate } from './display-meta.backfill.js';
import { backfillInto, probeFor, type MergeContext, type StateCandidate } from './merge.context.js';
import { catalogueOf, countReplaySkip, rememberDedupKey, rowIdIndexOf } from './merge.indexes.js';
import { mirrorPartnerOf } from './native-image.mirror.js';
import { apiContentOf, readRowId, timestampOf } from './row-fields.normalizer.js';
import { fuzzyAllowed, fuzzyVisibleMatch } from './visible-key.catalogue.js';

/**
 * Ladder steps 1–3 (reference §2.3 C.4): the agent-store row is a replay of a row the sidecar already
 * shows. Each step returns true when it decided the row's fate (here: skip it).
 */
export type LadderStep = (context: MergeContext, candidate: StateCandidate) => boolean;

/** Step 1, R15: the scalar `[screenshot]` mirror of a rich sidecar user row. */
export const nativeImageMirror: LadderStep = (context, candidate) => {
  const slot = mirrorPartnerOf(context.mirror, candidate.keyed.row);
  if (slot === null) return false;
  slot.row = adoptDuplicate(slot.row, candidate.keyed.row);
  if (context.sidecar[context.replayIndex] === slot) context.replayIndex += 1;
  rememberDedupKey(context, candidate.keyed, slot);
  return true;
};

/**
 * Step 2, R1/R3: positional replay of the sidecar's visible sequence, timestamps ignored. A row that
 * does not match the next expected sidecar row leaves the pointer where it is.
 */
export const prefixReplay: LadderStep = (context, candidate) => {
  const index = context.replayIndex;
  const slot = context.sidecar[index];
  const expected = context.sidecarKeyed[index];
  if (slot === undefined || expected === undefined) return false;
  const visible = visibleKeyOf(expected);
  if (!sameKey(visibleKeyOf(candidate.keyed), visible) && !fuzzyReplays(context, candidate, visible)) return false;
  backfillInto(slot, candidate.keyed.row);
  countReplaySkip(context, index);
  rememberDedupKey(context, candidate.keyed, slot);
  context.replayIndex += 1;
  return true;
};

/** The fuzzy fallback of step 2, only while the sidecar has at most FUZZY_MAX_KEYS visible keys (R18). */
function fuzzyReplays(context: MergeContext, candidate: StateCandidate, expected: VisibleKey): boolean {
  if (candidate.keyed.row.role !== expected.role) return false;
  const catalogue = catalogueOf(context);
  const entry = keyIndexGet(catalogue.entries, expected);
  return entry !== undefined && fuzzyAllowed(catalogue) && fuzzyVisibleMatch(probeFor(candidate), entry);
}

/**
 * Step 3: the same durable row id on exactly one row of each side. Different provider bytes on both
 * make a row-id conflict (R17): noted, and the row goes on down the ladder.
 */
export const rowIdFastPath: LadderStep = (context, candidate) => {
  const row = candidate.keyed.row;
  const rowId = readRowId(row);
  if (rowId.kind !== 'valid') return false;
  const index = rowIdIndexOf(context);
  const slot = index.sidecar.get(rowId.value);
  if (slot === undefined || slot === null || index.stateCounts.get(rowId.value) !== 1) return false;
  if (candidate.keyed.ts === null || timestampOf(slot.row) === null || !rowsCompatible(slot.row, row)) return false;
  const keptApi = apiContentOf(slot.row);
  const stateApi = apiContentOf(row);
  if (keptApi !== null && stateApi !== null && keptApi !== stateApi) {
    candidate.rowIdConflict = true;
    return false;
  }
  slot.row = adoptDuplicate(slot.row, row);
  return true;
};
