import { keyRow, visibleTextOf, type KeyedRow } from '../transcript-merge/comparison-keys.builder.js';
import { looseText } from '../transcript-merge/fuzzy-text.match.js';
import type { MessageRow, StateRow } from '../messages/message-row.js';
import { factsOf, type SidecarKeys } from './fix-point.keys.js';
import { FACT_MERGE_KEY, FACT_DEDUP_KEY, FACT_CONTENT_KEY, FACT_VISIBLE_KEY, FACT_SAFE10, STRIDE } from './fix-point.rows.js';
import { apiContentOf, stableIdOf, timestampOf } from '../transcript-merge/row-fields.normalizer.js';

/** Condition 3 of the fix point proof (fix-point.ts): certificates that the merge ladder drops every state row. */

/**
 * The state rows of this merge, T = T0 ++ N (condition 1 for T): the rows merged at the last fix point are
 * unchanged and still included, the new ones sort after them. `facts` continues `FixPoint.rows` (stride 4) with a zero entry
 * per new row; `rows[i]` is the state row of entry i.
 */
export interface MergedRows {
  readonly rows: StateRow[];
  readonly fresh: StateRow[];
  readonly facts: number[];
  /** `rows[i]` keyed on the state side, built on first use (`probeAt`). */
  readonly probes: KeyedRow[];
}

/** The probe of merged row `index`: its keys are built once per commit, whoever asks. */
export const probeAt = (merged: MergedRows, index: number): KeyedRow => (merged.probes[index] ??= keyRow(merged.rows[index], 'state'));

/** Whether step 9 might match `probe` fuzzily to the entry of `target`'s visible key (an over-approximation of §2.1). */
export function mayMatchFuzzily(probe: MessageRow, target: MessageRow): boolean {
  if (probe.role !== target.role || apiContentOf(probe) !== apiContentOf(target)) return false;
  const a = visibleTextOf(probe, 'state');
  const b = visibleTextOf(target, 'state');
  if (a.length === 0 || b.length === 0) return false;
  if (a.includes(b) || b.includes(a)) return true;
  const la = looseText(a);
  const lb = looseText(b);
  return la.length > 0 && lb.length > 0 && (la.includes(lb) || lb.includes(la));
}

type Certificate = 'step8' | 'step10' | 'none';

export function certificateOf(row: StateRow, mask: number, sidecarMaxTs: number | null, watermark: number | null): Certificate {
  const ts = timestampOf(row);
  const inRange = ts !== null && sidecarMaxTs !== null && ts <= sidecarMaxTs;
  if ((mask & FACT_DEDUP_KEY) !== 0 || ((mask & FACT_MERGE_KEY) !== 0 && (inRange || stableIdOf(row) !== null))) return 'step8';
  const contentSeen = (mask & FACT_CONTENT_KEY) !== 0;
  const dropsAt10 =
    inRange &&
    (mask & FACT_SAFE10) !== 0 &&
    (row.role !== 'user' || contentSeen) &&
    (watermark === null || ts !== watermark || contentSeen);
  return dropsAt10 ? 'step10' : 'none';
}

/**
 * Condition 3: every merged row is dropped by the ladder. Rows of T0 without a certificate are keyed against A
 * too (their facts only grow); `oldLength` is |X0|, `freshFrom` the first entry of N.
 */
export function everyRowDropped(
  merged: MergedRows,
  keys: SidecarKeys,
  oldLength: number,
  freshFrom: number,
  sidecarMaxTs: number | null,
  watermark: number | null,
): boolean {
  const { rows, facts } = merged;
  const consumers: number[] = [];
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index];
    const at = index * STRIDE;
    let certificate = certificateOf(row, facts[at + 1], sidecarMaxTs, watermark);
    if (certificate === 'none' && index < freshFrom) {
      const { mask, holder } = factsOf(probeAt(merged, index), keys, sidecarMaxTs);
      facts[at + 1] |= mask;
      facts[at + 3] = Math.max(facts[at + 3], holder);
      certificate = certificateOf(row, facts[at + 1], sidecarMaxTs, watermark);
    }
    if (certificate === 'step8') continue;
    if (certificate === 'none') {
      if ((facts[at + 1] & FACT_VISIBLE_KEY) === 0) return false;
      const holders = keys.holdersOfVisibleKey(probeAt(merged, index)).filter((position) => position >= index).length;
      const known = facts[at + 3] >= index && facts[at + 3] < oldLength ? 1 : 0;
      let consumed = 0;
      for (const other of consumers) {
        const sameKey = facts[other * STRIDE + 2] === facts[at + 2];
        if (sameKey || ((facts[other * STRIDE + 1] & FACT_VISIBLE_KEY) === 0 && mayMatchFuzzily(rows[other], row))) consumed += 1;
      }
      if (consumed >= holders + known) return false;
    }
    consumers.push(index);
  }
  return true;
}
