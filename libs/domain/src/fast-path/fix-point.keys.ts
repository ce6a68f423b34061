import {
  contentKey,
  contentKeyOf,
  dedupKey,
  dedupKeyOf,
  keyRow,
  keyString,
  mergeKey,
  mergeKeyOf,
  sameKey,
  visibleKey,
  visibleKeyOf,
  type KeyedRow,
} from '../transcript-merge/comparison-keys.builder.js';
import type { MessageRow } from '../messages/message-row.js';
import { FACT_CONTENT_KEY, FACT_DEDUP_KEY, FACT_MERGE_KEY, FACT_VISIBLE_KEY, keyHash32 } from './fix-point.rows.js';
import { stableIdOf, timestampOf } from '../transcript-merge/row-fields.normalizer.js';

/**
 * Which keys an expansion holds, as the merge files them (sidecar side, after the pre-pass). A probe is a state
 * row keyed on the state side (`keyRow(row, 'state')`): it builds each of its keys once, however many questions
 * it is asked (the facts of a row and the ladder's budget ask about the same rows).
 */
export interface SidecarKeys {
  hasMergeKey(probe: KeyedRow): boolean;
  hasDedupKey(probe: KeyedRow): boolean;
  hasContentKey(probe: KeyedRow): boolean;
  /** The positions in X of the holders of the probe's visible key, ascending (empty: none). */
  holdersOfVisibleKey(probe: KeyedRow): readonly number[];
}

/** Every key of every row, filed (a fix point after a full merge: one pass over X). */
export function filedKeys(rows: readonly MessageRow[]): SidecarKeys {
  const mergeKeys = new Set(rows.map((row) => mergeKey(row)));
  const dedupKeys = new Set(rows.map((row) => dedupKey(row)));
  const contentKeys = new Set(rows.map((row) => contentKey(row, 'sidecar')));
  const visibleKeys = new Map<string, number[]>();
  rows.forEach((row, position) => {
    const visible = visibleKey(row, 'sidecar');
    const positions = visibleKeys.get(visible);
    if (positions === undefined) visibleKeys.set(visible, [position]);
    else positions.push(position);
  });
  // keyString of a keyed row's parts is the string the merge files (mergeKey(row) = keyString(mergeKeyOf(keyRow(row)))).
  return {
    hasMergeKey: (probe) => mergeKeys.has(keyString(mergeKeyOf(probe))),
    hasDedupKey: (probe) => dedupKeys.has(keyString(dedupKeyOf(probe))),
    hasContentKey: (probe) => contentKeys.has(keyString(contentKeyOf(probe))),
    holdersOfVisibleKey: (probe) => visibleKeys.get(keyString(visibleKeyOf(probe))) ?? [],
  };
}

const secondOf = (row: MessageRow): number | null => {
  const ts = timestampOf(row);
  return ts === null ? null : Math.trunc(ts);
};

/**
 * The keys of the few rows S gained since the last fix point, computed only for rows that could share them: the
 * dedup key needs the same exact timestamp, the merge key the same whole second (or a stable id), the content and
 * visible keys the same role. Keys are compared part by part (`sameKey`, equal exactly when their strings are): a
 * key holds a whole text and its provider bytes, so joining them into one string per comparison would copy both
 * each time.
 */
export function appendedKeys(rows: readonly MessageRow[], offset: number): SidecarKeys {
  const keyed = rows.map((row) => keyRow(row, 'sidecar'));
  const any = (matches: (other: MessageRow) => boolean, same: (other: KeyedRow) => boolean): boolean =>
    keyed.some((other) => matches(other.row) && same(other));
  return {
    hasMergeKey: (probe) => {
      const { row } = probe;
      const matches = (other: MessageRow): boolean =>
        stableIdOf(row) !== null || (other.role === row.role && secondOf(other) === secondOf(row));
      return any(matches, (other) => sameKey(mergeKeyOf(other), mergeKeyOf(probe)));
    },
    hasDedupKey: (probe) => {
      const { row } = probe;
      const matches = (other: MessageRow): boolean =>
        stableIdOf(row) !== null || (other.role === row.role && other.timestamp === row.timestamp);
      return any(matches, (other) => sameKey(dedupKeyOf(other), dedupKeyOf(probe)));
    },
    hasContentKey: (probe) => any((other) => other.role === probe.row.role, (other) => sameKey(contentKeyOf(other), contentKeyOf(probe))),
    holdersOfVisibleKey: (probe) => {
      const positions: number[] = [];
      keyed.forEach((other, index) => {
        if (other.row.role === probe.row.role && sameKey(visibleKeyOf(other), visibleKeyOf(probe))) positions.push(offset + index);
      });
      return positions;
    },
  };
}

/**
 * What `keys` holds for a state row (its probe), as FACT_* bits, with the hash of its visible key and its last
 * holder. Keys are built only while they can matter: a row whose dedup key X holds, or its merge key within range,
 * is dropped by step 8 at the latest from now on (the range only grows), so it needs nothing else; the content
 * key only matters without the merge key.
 */
export function factsOf(probe: KeyedRow, keys: SidecarKeys, sidecarMaxTs: number | null): { mask: number; hash: number; holder: number } {
  const { row } = probe;
  if (keys.hasDedupKey(probe)) return { mask: FACT_DEDUP_KEY, hash: 0, holder: -1 };
  let mask = 0;
  if (keys.hasMergeKey(probe)) {
    const ts = timestampOf(row);
    if (stableIdOf(row) !== null || (ts !== null && sidecarMaxTs !== null && ts <= sidecarMaxTs)) return { mask: FACT_MERGE_KEY, hash: 0, holder: -1 };
    mask |= FACT_MERGE_KEY;
  } else if (keys.hasContentKey(probe)) mask |= FACT_CONTENT_KEY;
  const holders = keys.holdersOfVisibleKey(probe);
  if (holders.length > 0) mask |= FACT_VISIBLE_KEY;
  // The hash is of the visible key's string (visibleKey(row, 'state')), as fix points recorded before hold it.
  return { mask, hash: keyHash32(keyString(visibleKeyOf(probe))), holder: holders.at(-1) ?? -1 };
}
