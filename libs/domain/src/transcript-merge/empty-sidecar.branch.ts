import type { MessageRow } from '../messages/message-row.js';
import { dedupKeyOf, keyRow } from './comparison-keys.builder.js';
import { backfillMeta } from './display-meta.backfill.js';
import { createKeyIndex, keyIndexGet, keyIndexSetIfAbsent } from './key.index.js';
import { timestampOf } from './row-fields.normalizer.js';

/**
 * Branch B of reference §2.3: the sidecar lost its rows (cold recovery), so the agent store is the
 * only source, filtered by the truncation watermark W and boundary B (R9).
 */
export function mergeIntoEmptySidecar(state: readonly MessageRow[], watermark: number | null, boundary: number | null): MessageRow[] {
  return dropExactDuplicates(keptByWatermark(state, watermark, boundary));
}

function keptByWatermark(state: readonly MessageRow[], watermark: number | null, boundary: number | null): MessageRow[] {
  if (watermark === null) return state.slice();
  // W == 0 is the clear / truncate-to-empty sentinel: nothing may be replayed.
  if (watermark === 0) return [];
  const stamped = (keep: (ts: number) => boolean): MessageRow[] =>
    state.filter((row) => {
      const ts = timestampOf(row);
      return ts !== null && keep(ts);
    });
  // Truncated at B, then advanced to W by a new turn: the suffix (B, W) was deleted.
  if (watermark > 0 && boundary !== null && boundary < watermark) {
    return [...stamped((ts) => ts <= boundary), ...stamped((ts) => ts >= watermark)];
  }
  return stamped((ts) => ts <= watermark);
}

/** Duplicates by the dedup key: the first occurrence stays and inherits the later copies' display metadata (R13). */
function dropExactDuplicates(rows: readonly MessageRow[]): MessageRow[] {
  const firstIndex = createKeyIndex<number>();
  const kept: MessageRow[] = [];
  for (const row of rows) {
    const key = dedupKeyOf(keyRow(row, 'state'));
    const index = keyIndexGet(firstIndex, key);
    if (index === undefined) {
      keyIndexSetIfAbsent(firstIndex, key, kept.length);
      kept.push(row);
    } else kept[index] = backfillMeta(kept[index]!, row);
  }
  return kept;
}
