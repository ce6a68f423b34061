import { canonicalJson } from '../canonical/index.js';
import type { MessageRow } from '../messages/message-row.js';

/** The rows to send a client holding `base` so it holds `current`: keep the first `from` rows, append `messages`. */
export interface TranscriptDelta {
  readonly from: number;
  readonly messages: readonly MessageRow[];
}

/**
 * The longest common prefix of two transcripts, by content. Rows a render reuses are the same objects, so the
 * comparison is by reference first and by canonical JSON only where the objects differ: after a token that is
 * no work at all, after a settle it stops at the first changed row.
 */
export function transcriptDelta(base: readonly MessageRow[], current: readonly MessageRow[]): TranscriptDelta {
  if (base === current) return { from: current.length, messages: [] };
  const shorter = Math.min(base.length, current.length);
  let from = 0;
  while (from < shorter && (base[from] === current[from] || canonicalJson(base[from]) === canonicalJson(current[from]))) from += 1;
  return { from, messages: current.slice(from) };
}
