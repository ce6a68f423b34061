import { contentKey, dedupKey, mergeKey, visibleKey } from '../merge/index.js';
import type { MessageRow } from '../messages/message-row.js';
import { FACT_K1, FACT_K2, FACT_K3, FACT_K4, hashOf, stableIdOf, timeOf } from './commit-fix.rows.js';

/** Which keys an expansion holds, as the merge files them (sidecar side, after the pre-pass). */
export interface SidecarKeys {
  hasK1(row: MessageRow): boolean;
  hasK2(row: MessageRow): boolean;
  hasK3(row: MessageRow): boolean;
  /** The positions in X of the holders of the row's visible key K4, ascending (empty: none). */
  holdersOf(visible: string, role: string): readonly number[];
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
  return {
    hasK1: (row) => k1.has(mergeKey(row)),
    hasK2: (row) => k2.has(dedupKey(row)),
    hasK3: (row) => k3.has(contentKey(row, 'state')),
    holdersOf: (visible) => k4.get(visible) ?? [],
  };
}

/**
 * The keys of the few rows S gained since the fix, computed only for rows that could share them: K2 needs the
 * same exact timestamp, K1 the same whole second (or a stable id), K3 and K4 the same role (keys hold whole texts
 * and provider bytes, so building them for every pair would cost more than the rest of the fix).
 */
export function appendedKeys(rows: readonly MessageRow[], offset: number): SidecarKeys {
  const cache = new Map<string, string>();
  const keyOf = (kind: string, index: number, make: (row: MessageRow) => string): string => {
    const name = `${kind}${index}`;
    let key = cache.get(name);
    if (key === undefined) cache.set(name, (key = make(rows[index])));
    return key;
  };
  const any = (matches: (row: MessageRow) => boolean, kind: string, make: (row: MessageRow) => string, key: () => string): boolean => {
    for (let index = 0; index < rows.length; index += 1) if (matches(rows[index]) && keyOf(kind, index, make) === key()) return true;
    return false;
  };
  const lazy = (make: () => string): (() => string) => {
    let value: string | undefined;
    return () => (value ??= make());
  };
  const second = (row: MessageRow): number | null => {
    const ts = timeOf(row);
    return ts === null ? null : Math.trunc(ts);
  };
  return {
    hasK1: (row) =>
      any((other) => stableIdOf(row) !== null || (other.role === row.role && second(other) === second(row)), 'k1', mergeKey, lazy(() => mergeKey(row))),
    hasK2: (row) =>
      any((other) => stableIdOf(row) !== null || (other.role === row.role && other.timestamp === row.timestamp), 'k2', dedupKey, lazy(() => dedupKey(row))),
    hasK3: (row) => any((other) => other.role === row.role, 'k3', (other) => contentKey(other, 'sidecar'), lazy(() => contentKey(row, 'state'))),
    holdersOf: (visible, role) => {
      const positions: number[] = [];
      rows.forEach((other, index) => {
        if (other.role === role && keyOf('k4', index, (it) => visibleKey(it, 'sidecar')) === visible) positions.push(offset + index);
      });
      return positions;
    },
  };
}

/**
 * What `keys` holds for a state row, as FACT_* bits, with the hash of its K4 and its last holder. Keys are built
 * only while they can matter: a row X holds K2 of, or K1 of within range, is dropped by step 8 at the latest from
 * now on (the range only grows), so it needs nothing else; K3 only matters without K1.
 */
export function factsOf(row: MessageRow, keys: SidecarKeys, sidecarMaxTs: number | null): { mask: number; hash: number; holder: number } {
  if (keys.hasK2(row)) return { mask: FACT_K2, hash: 0, holder: -1 };
  let mask = 0;
  if (keys.hasK1(row)) {
    const ts = timeOf(row);
    if (stableIdOf(row) !== null || (ts !== null && sidecarMaxTs !== null && ts <= sidecarMaxTs)) return { mask: FACT_K1, hash: 0, holder: -1 };
    mask |= FACT_K1;
  } else if (keys.hasK3(row)) mask |= FACT_K3;
  const visible = visibleKey(row, 'state');
  const holders = keys.holdersOf(visible, row.role);
  if (holders.length > 0) mask |= FACT_K4;
  return { mask, hash: hashOf(visible), holder: holders.at(-1) ?? -1 };
}
