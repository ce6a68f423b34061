import { backfillMeta } from '../transcript-merge/display-meta.backfill.js';
import { mirrorTextOf } from '../transcript-merge/native-image.mirror.js';
import type { MessageRow } from '../messages/message-row.js';

/** Row facts and helpers the fix point proof (fix-point.ts) reasons with. */

/** Bits of `FixPoint.rows` facts: what the expansion holds for a state row. */
export const FACT_MERGE_KEY = 1;
export const FACT_DEDUP_KEY = 2;
export const FACT_CONTENT_KEY = 4;
export const FACT_VISIBLE_KEY = 8;
/** Step 10 can only drop the row: no stable id, no tool calls, no possible row-id conflict (R17). */
export const FACT_SAFE10 = 16;
export const STRIDE = 4;

export const rowIdOf = (row: MessageRow): number | null =>
  typeof row.rowId === 'number' && Number.isSafeInteger(row.rowId) && row.rowId >= 0 ? row.rowId : null;
export const isUserOrAssistant = (row: MessageRow): boolean => row.role === 'user' || row.role === 'assistant';
/** Rows the pre-pass files by content (§2.2): an untimed one may pair in the content-only tier. */
export const takesPartInPrepass = (row: MessageRow): boolean => isUserOrAssistant(row) || mirrorTextOf(row) !== null;
export const max = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

const NO_META: MessageRow = { role: 'user' };
/** R13 could backfill nothing from this row: it has no non-empty display metadata. */
export const hasNoMeta = (row: MessageRow): boolean => backfillMeta(NO_META, row) === NO_META;

/**
 * A hash of a visible key for counting budget consumers: equal keys hash equal; a collision only makes the count
 * more conservative. FNV-1a of the length and of at most the first and last 64 code units (keys hold whole texts).
 */
export function keyHash32(key: string): number {
  let hash = Math.imul(0x811c9dc5 ^ key.length, 0x01000193);
  const step = (index: number): void => {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  };
  if (key.length <= 128) for (let index = 0; index < key.length; index += 1) step(index);
  else for (let index = 0; index < 64; index += 1) {
    step(index);
    step(key.length - 1 - index);
  }
  return hash >>> 0;
}
