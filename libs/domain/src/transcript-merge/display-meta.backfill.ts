import type { MessageRow } from '../messages/message-row.js';
import { apiContentOf } from './row-fields.normalizer.js';
import { isRecord } from '../messages/message-text.js';

/**
 * Enrichments the reference applies to sidecar rows IN PLACE during a merge. Here they return a new
 * row (or the same row when nothing changes), so the caller's inputs are never touched.
 */

/**
 * `{ ...row, ...fields }`, built so that copies of rows of one shape share one V8 hidden class. On Node 20
 * (V8 11.3) an object literal that spreads a row and adds a key the row lacks gets a hidden class of its own,
 * every time; a transcript of such rows makes every later read of them (each merge, expansion and fix point
 * reads rows many times) a megamorphic miss: a copy costs ~30x an `Object.assign` one, each read ~4x.
 * `Object.assign` onto a fresh object follows the shared transitions instead, with the same own keys, order and
 * values, except that it sets `__proto__` through the setter: a row with an own `__proto__` key is spread.
 */
function withRowFields(row: MessageRow, fields: Partial<MessageRow>): MessageRow {
  if (Object.hasOwn(row, '__proto__') || Object.hasOwn(fields, '__proto__')) return { ...row, ...fields };
  return Object.assign({}, row, fields);
}

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
 * duplicate. Adaptation: display metadata is our `meta` object, so every key of it takes part, a
 * `__proto__` or `constructor` key included: the kept row's own keys are read (not what its prototype
 * has under that name), and the copies are defined, never assigned (which would set a prototype).
 */
export function backfillMeta(kept: MessageRow, dropped: MessageRow): MessageRow {
  const source = dropped.meta;
  if (!isRecord(source)) return kept;
  const keptMeta = kept.meta;
  const additions = Object.entries(source).filter(
    ([key, value]) => !isEmptyMetaValue(value) && (!keptMeta || !Object.hasOwn(keptMeta, key) || isEmptyMetaValue(keptMeta[key])),
  );
  return additions.length === 0 ? kept : withRowFields(kept, { meta: { ...keptMeta, ...Object.fromEntries(additions) } });
}

/** Copies a state row's provider bytes onto a kept row that has none; an existing value is never replaced. */
export function withApiContent(kept: MessageRow, source: MessageRow): MessageRow {
  const api = apiContentOf(source);
  if (api === null || apiContentOf(kept) !== null) return kept;
  return withRowFields(kept, { apiContent: api });
}

/** Both enrichments a matched agent-store row brings to the sidecar row it duplicates. */
export function adoptDuplicate(kept: MessageRow, dropped: MessageRow): MessageRow {
  return backfillMeta(withApiContent(kept, dropped), dropped);
}
