import { mergeKeyOf, dedupKeyOf, contentKeyOf, visibleKeyOf, type KeyedRow } from './comparison-keys.builder.js';
import { createKeyIndex, keyIndexGet, keyIndexSetIfAbsent } from './key.index.js';
import type { MergeContext, RowIdIndex, SeenKeys } from './merge.context.js';
import { readRowId } from './row-fields.normalizer.js';
import type { Slot } from './timeline.list.js';
import { buildVisibleCatalogue, type VisibleCatalogue } from './visible-key.catalogue.js';

/**
 * The sidecar indexes of step C.1, built on first use: a merge whose agent rows all replay the
 * sidecar prefix never needs them. Keys remembered and skips counted before an index exists wait in
 * the context's queues and are folded in, in order, when it is built.
 */

export function seenKeys(context: MergeContext): SeenKeys {
  if (context.seen !== null) return context.seen;
  const seen: SeenKeys = { mergeKeys: createKeyIndex(), dedupKeys: createKeyIndex(), contentKeys: createKeyIndex() };
  context.sidecarKeyed.forEach((row, i) => record(seen, row, context.sidecar[i]!, true));
  for (const pending of context.pendingKeys.splice(0)) record(seen, pending.row, pending.slot, pending.all);
  return (context.seen = seen);
}

function record(seen: SeenKeys, row: KeyedRow, slot: Slot, all: boolean): void {
  keyIndexSetIfAbsent(seen.dedupKeys, dedupKeyOf(row), slot);
  if (!all) return;
  keyIndexSetIfAbsent(seen.mergeKeys, mergeKeyOf(row), slot);
  keyIndexSetIfAbsent(seen.contentKeys, contentKeyOf(row), true);
}

/** A replayed row: only its dedup key is remembered (reference step 2 / step 1). */
export function rememberDedupKey(context: MergeContext, row: KeyedRow, slot: Slot): void {
  if (context.seen === null) context.pendingKeys.push({ row, slot, all: false });
  else record(context.seen, row, slot, false);
}

/** A row that entered the output: its merge, dedup and content keys, so its later duplicates are caught. */
export function rememberKeys(context: MergeContext, row: KeyedRow, slot: Slot): void {
  if (context.seen === null) context.pendingKeys.push({ row, slot, all: true });
  else record(context.seen, row, slot, true);
}

export function catalogueOf(context: MergeContext): VisibleCatalogue {
  if (context.catalogue !== null) return context.catalogue;
  const rows = context.sidecarKeyed.map((row, i) => ({ visible: visibleKeyOf(row), slot: context.sidecar[i]! }));
  const catalogue = buildVisibleCatalogue(rows);
  context.catalogue = catalogue;
  for (const index of context.pendingSkips.splice(0)) countReplaySkip(context, index);
  return catalogue;
}

/** Prefix replay consumed sidecar row `index`: one skip against its visible key. */
export function countReplaySkip(context: MergeContext, index: number): void {
  if (context.catalogue === null) {
    context.pendingSkips.push(index);
    return;
  }
  const entry = keyIndexGet(context.catalogue.entries, visibleKeyOf(context.sidecarKeyed[index]!));
  if (entry !== undefined) entry.skips += 1;
}

export function rowIdIndexOf(context: MergeContext): RowIdIndex {
  if (context.rowIds !== null) return context.rowIds;
  const sidecar = new Map<number, Slot | null>();
  context.sidecar.forEach((slot) => {
    const rowId = readRowId(slot.row);
    if (rowId.kind === 'valid') sidecar.set(rowId.value, sidecar.has(rowId.value) ? null : slot);
  });
  const stateCounts = new Map<number, number>();
  for (const row of context.state) {
    const rowId = readRowId(row);
    if (rowId.kind === 'valid') stateCounts.set(rowId.value, (stateCounts.get(rowId.value) ?? 0) + 1);
  }
  return (context.rowIds = { sidecar, stateCounts });
}
