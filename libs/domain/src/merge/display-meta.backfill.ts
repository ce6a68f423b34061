import type { MessageRow } from '../messages/message-row.js';
import { apiContentOf, isRecord } from './row-fields.normalizer.js';

/**
 * Enrichments the reference applies to sidecar rows IN PLACE during a merge. Here they return a new
 * row (or the same row when nothing changes), so the caller's inputs are never touched.
 */

/**
 * "Missing/empty" display metadata. Adaptation: Python treats every falsy value as empty; we keep 0
 * and false as real values (a 0 ms first token is a measurement, not a gap).
 */
export function isEmptyMetaValue(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

/**
 * R13: each `meta` key that is missing or empty on the kept row is copied from the dropped
 * duplicate. Adaptation: display metadata is our `meta` object, so every key of it takes part.
 */
export function backfillMeta(kept: MessageRow, dropped: MessageRow): MessageRow {
  const source = dropped.meta;
  if (!isRecord(source)) return kept;
  let additions: Record<string, unknown> | null = null;
  for (const [key, value] of Object.entries(source)) {
    if (isEmptyMetaValue(value) || !isEmptyMetaValue(kept.meta?.[key])) continue;
    additions ??= {};
    additions[key] = value;
  }
  return additions === null ? kept : { ...kept, meta: { ...kept.meta, ...additions } };
}

/** Copies a state row's provider bytes onto a kept row that has none; an existing value is never replaced. */
export function withApiContent(kept: MessageRow, source: MessageRow): MessageRow {
  const api = apiContentOf(source);
  if (api === null || apiContentOf(kept) !== null) return kept;
  return { ...kept, apiContent: api };
}

/** Both enrichments a matched agent-store row brings to the sidecar row it duplicates. */
export function adoptDuplicate(kept: MessageRow, dropped: MessageRow): MessageRow {
  return backfillMeta(withApiContent(kept, dropped), dropped);
}
