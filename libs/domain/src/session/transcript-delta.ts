import type { MessageRow } from '../messages/message-row.js';
import type { RenderedTranscript } from './session.view.js';

/** The rows to send a client holding `base` so it holds `current`: keep the first `from` rows, append `messages`. */
export interface TranscriptDelta {
  readonly from: number;
  readonly messages: readonly MessageRow[];
}

/**
 * The longest common prefix of two transcripts, by content: row i of both is equal exactly when their chain
 * links after row i are (the chain covers every row before it too). No row is serialised again.
 */
export function transcriptDelta(base: RenderedTranscript, current: RenderedTranscript): TranscriptDelta {
  if (base.messages === current.messages) return { from: current.messages.length, messages: [] };
  const shorter = Math.min(base.links.length, current.links.length);
  let from = 0;
  while (from < shorter && base.links[from] === current.links[from]) from += 1;
  return { from, messages: current.messages.slice(from) };
}
