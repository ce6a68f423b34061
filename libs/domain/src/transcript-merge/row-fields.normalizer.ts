import { comparisonJson } from '../canonical/comparison-json.js';
import type { MessageRow } from '../messages/message-row.js';

/**
 * Field readers shared by every merge rule (reference §2.1). They never throw on odd values: a
 * row read from an agent store may carry anything, and the merge must still produce a transcript.
 */

/** Only `timestamp` counts; anything but a finite number is "no timestamp". */
export function timestampOf(row: MessageRow): number | null {
  const ts: unknown = row.timestamp;
  return typeof ts === 'number' && Number.isFinite(ts) ? ts : null;
}

/** A timestamp that is present but not a finite number: invalid provenance for the api pre-pass. */
export function hasInvalidTimestamp(row: MessageRow): boolean {
  const ts: unknown = row.timestamp;
  return ts !== null && ts !== undefined && timestampOf(row) === null;
}

/** second(ts): whole seconds truncated toward zero; `-0` prints as `0`, as Python's int() does. */
export function secondOf(row: MessageRow): string {
  const ts: unknown = row.timestamp;
  if (ts === null || ts === undefined) return '';
  if (typeof ts !== 'number') return `raw:${String(ts)}`;
  if (!Number.isFinite(ts)) return `non-finite:${String(ts)}`;
  return String(Math.trunc(ts));
}

/**
 * The exact timestamp for the dedup key. Adaptation: JS prints 1000 and 1000.0 alike, so they are equal here
 * (Python keeps them apart; no reference test depends on it).
 */
export function exactTimestampOf(row: MessageRow): string {
  const ts: unknown = row.timestamp;
  return ts === null || ts === undefined ? '' : String(ts);
}

/** `str(content or "")`; adaptation: list content is keyed by its canonical JSON (sorted keys). */
export function contentStringOf(row: MessageRow): string {
  const content: unknown = row.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.length === 0 ? '' : comparisonJson(content);
  return content === null || content === undefined ? '' : String(content);
}

/** tc_key: canonical JSON of a non-empty `toolCalls` list, else the empty string. */
export function toolCallsKeyOf(row: MessageRow): string {
  const calls: unknown = row.toolCalls;
  return Array.isArray(calls) && calls.length > 0 ? comparisonJson(calls) : '';
}

/** The +api key component: a non-empty string `apiContent`, else null. */
export function apiContentOf(row: MessageRow): string | null {
  const api: unknown = row.apiContent;
  return typeof api === 'string' && api.length > 0 ? api : null;
}

export function stableIdOf(row: MessageRow): string | null {
  const id: unknown = row.id;
  return typeof id === 'string' && id.length > 0 ? id : null;
}

/**
 * R16 adaptation: our rows have a single `rowId`, so the alias conflict reduces to "a rowId that is
 * not a non-negative safe integer (boolean, negative, fractional, NaN) is invalid provenance".
 */
export type RowIdReading = { readonly kind: 'absent' } | { readonly kind: 'invalid' } | { readonly kind: 'valid'; readonly value: number };

export function readRowId(row: MessageRow): RowIdReading {
  const raw: unknown = row.rowId;
  if (raw === null || raw === undefined) return { kind: 'absent' };
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) return { kind: 'valid', value: raw };
  return { kind: 'invalid' };
}
