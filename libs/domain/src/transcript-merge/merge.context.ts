import type { MessageRow } from '../messages/message-row.js';
import { visibleKeyOf, keyRow, type KeyedRow } from './comparison-keys.builder.js';
import { backfillMeta } from './display-meta.backfill.js';
import type { KeyIndex } from './key.index.js';
import { buildMirrorIndex, type MirrorIndex } from './native-image.mirror.js';
import { createTimeline, slotOf, type Slot, type Timeline } from './timeline.list.js';
import { probeOf, type VisibleCatalogue, type VisibleProbe } from './visible-key.catalogue.js';

/** Truncation watermark W and boundary B (R9); anything but a finite number means "absent". */
export interface MergeOptions {
  readonly watermark?: number | null;
  readonly boundary?: number | null;
}

/** Merge and dedup keys → the first row holding them (where a backfill goes); content keys, membership only. */
export interface SeenKeys {
  readonly mergeKeys: KeyIndex<Slot>;
  readonly dedupKeys: KeyIndex<Slot>;
  readonly contentKeys: KeyIndex<true>;
}

/** Durable row ids: sidecar id → its row (null = two sidecar rows share it); counts on the agent side. */
export interface RowIdIndex {
  readonly sidecar: ReadonlyMap<number, Slot | null>;
  readonly stateCounts: ReadonlyMap<number, number>;
}

/**
 * What step C.1 records from the sidecar, plus the replay pointer. The key indexes are built on first
 * use (a pure replay never needs them); until then remembered keys and replay skips are queued, and
 * folded in, in order, when the index is built, so "first holder wins" is kept exactly.
 */
export interface MergeContext {
  readonly sidecar: readonly Slot[];
  readonly sidecarKeyed: readonly KeyedRow[];
  readonly state: readonly MessageRow[];
  readonly timeline: Timeline;
  readonly mirror: MirrorIndex;
  readonly maxSidecarTs: number | null;
  readonly watermark: number | null;
  readonly boundary: number | null;
  replayIndex: number;
  seen: SeenKeys | null;
  catalogue: VisibleCatalogue | null;
  rowIds: RowIdIndex | null;
  readonly pendingKeys: { readonly row: KeyedRow; readonly slot: Slot; readonly all: boolean }[];
  readonly pendingSkips: number[];
}

/** One agent-store row going down the ladder. */
export interface StateCandidate {
  readonly keyed: KeyedRow;
  probe: VisibleProbe | null;
  /** Set by the row-id fast path when both rows carry different provider bytes (R17). */
  rowIdConflict: boolean;
}

export function finiteOrNull(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function createMergeContext(sidecar: readonly MessageRow[], state: readonly MessageRow[], options: MergeOptions): MergeContext {
  const slots = sidecar.map(slotOf);
  let maxSidecarTs: number | null = null;
  for (const slot of slots) if (slot.ts !== null) maxSidecarTs = maxSidecarTs === null ? slot.ts : Math.max(maxSidecarTs, slot.ts);
  return {
    sidecar: slots,
    sidecarKeyed: sidecar.map((row) => keyRow(row, 'sidecar')),
    state,
    timeline: createTimeline(slots),
    mirror: buildMirrorIndex(slots, state),
    maxSidecarTs,
    watermark: finiteOrNull(options.watermark),
    boundary: finiteOrNull(options.boundary),
    replayIndex: 0,
    seen: null,
    catalogue: null,
    rowIds: null,
    pendingKeys: [],
    pendingSkips: [],
  };
}

export function stateCandidateOf(row: MessageRow): StateCandidate {
  return { keyed: keyRow(row, 'state'), probe: null, rowIdConflict: false };
}

export function probeFor(candidate: StateCandidate): VisibleProbe {
  return (candidate.probe ??= probeOf(visibleKeyOf(candidate.keyed)));
}

/** checkpointConsumed: the prefix replay has walked past the last sidecar row. */
export function checkpointConsumed(context: MergeContext): boolean {
  return context.replayIndex >= context.sidecar.length;
}

/** advanced: the sidecar moved past W (a newer row, or B < W with the whole sidecar replayed). */
export function watermarkAdvanced(context: MergeContext): boolean {
  const { watermark, boundary, maxSidecarTs } = context;
  if (watermark === null) return false;
  if (maxSidecarTs !== null && maxSidecarTs > watermark) return true;
  return boundary !== null && boundary < watermark && checkpointConsumed(context);
}

/** τ present and τ ≤ maxSidecarTs: the row falls inside the time range the sidecar covers. */
export function withinSidecarRange(context: MergeContext, ts: number | null): ts is number {
  return ts !== null && context.maxSidecarTs !== null && ts <= context.maxSidecarTs;
}

/** R13 backfill of a kept row from a dropped duplicate. */
export function backfillInto(slot: Slot, dropped: MessageRow): void {
  slot.row = backfillMeta(slot.row, dropped);
}
