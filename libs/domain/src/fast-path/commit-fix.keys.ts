import { contentKey, dedupKey, k1Of, k2Of, k3Of, k4Of, keyRow, keyString, mergeKey, sameKey, visibleKey, type KeyedRow } from '../transcript-merge/comparison-keys.builder.js';
import type { MessageRow } from '../messages/message-row.js';
import { FACT_K1, FACT_K2, FACT_K3, FACT_K4, keyHash32 } from './commit-fix.rows.js';
import { stableIdOf, timestampOf } from '../transcript-merge/row-fields.normalizer.js';

/**
 * Which keys an expansion holds, as the merge files them (sidecar side, after the pre-pass). A probe is a state
 * row keyed on the state side (`keyRow(row, 'state')`): it builds each of its keys once, however many questions
 * it is asked (the facts of a row and the ladder's budget ask about the same rows).
 */
export interface SidecarKeys {
  hasK1(probe: KeyedRow): boolean;
  hasK2(probe: KeyedRow): boolean;
  hasK3(probe: KeyedRow): boolean;
  /** The positions in X of the holders of the probe's visible key K4, ascending (empty: none). */
  holdersOf(probe: KeyedRow): readonly number[];
}

/** Every key of every row, filed (a fix point after a full merge: one pass over X). */
export function filedKeys(rows: readonly MessageRow[]): SidecarKeys {
  const k1 = new Set(rows.map((row) => mergeKey(row)));
  const k2 = new Set(rows.map((row) => dedupKey(row)));
  const k3 = new Set(rows.map((row) => contentKey(row, 'sidecar')));
  const k4 = new Map<string, number[]>();
  rows.forEach((row, position) => {
    const visible = visibleKey(row, 'sidecar');
    const positions = k4.get(visible);
    if (positions === undefined) k4.set(visible, [position]);
    else positions.push(position);
  });
  // keyString of a keyed row's parts is the string the merge files (mergeKey(row) = keyString(k1Of(keyRow(row)))).
  return {
    hasK1: (probe) => k1.has(keyString(k1Of(probe))),
    hasK2: (probe) => k2.has(keyString(k2Of(probe))),
    hasK3: (probe) => k3.has(keyString(k3Of(probe))),
    holdersOf: (probe) => k4.get(keyString(k4Of(probe))) ?? [],
  };
}

const secondOf = (row: MessageRow): number | null => {
  const ts = timestampOf(row);
  return ts === null ? null : Math.trunc(ts);
};

/**
 * The keys of the few rows S gained since the fix, computed only for rows that could share them: K2 needs the
 * same exact timestamp, K1 the same whole second (or a stable id), K3 and K4 the same role. Keys are compared
 * part by part (`sameKey`, equal exactly when their strings are): a key holds a whole text and its provider
 * bytes, so joining them into one string per comparison would copy both each time.
 */
export function appendedKeys(rows: readonly MessageRow[], offset: number): SidecarKeys {
  const keyed = rows.map((row) => keyRow(row, 'sidecar'));
  const any = (matches: (other: MessageRow) => boolean, same: (other: KeyedRow) => boolean): boolean =>
    keyed.some((other) => matches(other.row) && same(other));
  return {
    hasK1: (probe) => {
      const { row } = probe;
      const matches = (other: MessageRow): boolean =>
        stableIdOf(row) !== null || (other.role === row.role && secondOf(other) === secondOf(row));
      return any(matches, (other) => sameKey(k1Of(other), k1Of(probe)));
    },
    hasK2: (probe) => {
      const { row } = probe;
      const matches = (other: MessageRow): boolean =>
        stableIdOf(row) !== null || (other.role === row.role && other.timestamp === row.timestamp);
      return any(matches, (other) => sameKey(k2Of(other), k2Of(probe)));
    },
    hasK3: (probe) => any((other) => other.role === probe.row.role, (other) => sameKey(k3Of(other), k3Of(probe))),
    holdersOf: (probe) => {
      const positions: number[] = [];
      keyed.forEach((other, index) => {
        if (other.row.role === probe.row.role && sameKey(k4Of(other), k4Of(probe))) positions.push(offset + index);
      });
      return positions;
    },
  };
}

/**
 * What `keys` holds for a state row (its probe), as FACT_* bits, with the hash of its K4 and its last holder.
 * Keys are built only while they can matter: a row X holds K2 of, or K1 of within range, is dropped by step 8 at
 * the latest from now on (the range only grows), so it needs nothing else; K3 only matters without K1.
 */
export function factsOf(probe: KeyedRow, keys: SidecarKeys, sidecarMaxTs: number | null): { mask: number; hash: number; holder: number } {
  const { row } = probe;
  if (keys.hasK2(probe)) return { mask: FACT_K2, hash: 0, holder: -1 };
  let mask = 0;
  if (keys.hasK1(probe)) {
    const ts = timestampOf(row);
    if (stableIdOf(row) !== null || (ts !== null && sidecarMaxTs !== null && ts <= sidecarMaxTs)) return { mask: FACT_K1, hash: 0, holder: -1 };
    mask |= FACT_K1;
  } else if (keys.hasK3(probe)) mask |= FACT_K3;
  const holders = keys.holdersOf(probe);
  if (holders.length > 0) mask |= FACT_K4;
  // The hash is of the K4 string (visibleKey(row, 'state')), as fix points stored before record it.
  return { mask, hash: keyHash32(keyString(k4Of(probe))), holder: holders.at(-1) ?? -1 };
}
