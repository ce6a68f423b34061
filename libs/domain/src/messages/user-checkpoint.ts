import { comparisonJson } from '../canonical/comparison-json.js';
import { ws } from '../text/whitespace.js';
import type { MessageRow } from './message-row.js';
import { rowText } from './message-text.js';

/** The source a user row has when it names none (reference §4.4). */
export const DEFAULT_SOURCE = 'webui';

export const sourceOf = (source: string | null | undefined): string => (source ? source : DEFAULT_SOURCE);

function wholeSecondsOf(timestamp: number | null | undefined): number | null {
  return typeof timestamp === 'number' && Number.isFinite(timestamp) ? Math.trunc(timestamp) : null;
}

/**
 * Two user rows are the same checkpoint (§4.3): ws-equal text, equal whole-second timestamps, same source
 * (missing = `webui`) and identical attachment lists (missing = none). The journal's recovery and the context's
 * dedupe both ask it.
 */
export function isSameCheckpoint(a: MessageRow, b: MessageRow): boolean {
  return (
    a.role === 'user' &&
    b.role === 'user' &&
    ws(rowText(a)) === ws(rowText(b)) &&
    wholeSecondsOf(a.timestamp) === wholeSecondsOf(b.timestamp) &&
    sourceOf(a.source) === sourceOf(b.source) &&
    comparisonJson(a.attachments ?? []) === comparisonJson(b.attachments ?? [])
  );
}
