import type { MessageContent, MessageRow } from '../messages/message-row.js';
import { comparisonJson } from '../canonical/comparison-json.js';

function sameContent(a: MessageContent | null | undefined, b: MessageContent | null | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return comparisonJson(a) === comparisonJson(b);
}

/**
 * The merge hands sidecar rows back, possibly enriched (api content attached, display metadata backfilled):
 * a row is "the same" when its identity fields are, whatever the enrichment.
 */
export function isSameRow(a: MessageRow, b: MessageRow): boolean {
  if (a === b) return true;
  return (
    a.role === b.role &&
    a.timestamp === b.timestamp &&
    (a.id ?? null) === (b.id ?? null) &&
    (a.toolCallId ?? null) === (b.toolCallId ?? null) &&
    a.type === b.type &&
    sameContent(a.content, b.content)
  );
}

/** The display copy of a row: `apiContent` is internal and never shown. */
export function withoutApiContent(row: MessageRow): MessageRow {
  if (!('apiContent' in row)) return row;
  const { apiContent: _apiContent, ...rest } = row;
  return rest;
}
