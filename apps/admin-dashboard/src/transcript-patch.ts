import { leavesOut, listAfterDelta, rowsAfterDelta, streamingAfterDelta } from '../../../libs/client/src/transcript-delta.js';
import { contentParts, type Marker, type MessageRow, type Streaming, type ToolCard, type Transcript, type TranscriptPatch, type View } from './api';

/** What the session page holds of a transcript: the rows at `version`, and what the pending turn streamed. */
export interface HeldTranscript {
  readonly version: number;
  readonly view: View;
  readonly hash: string;
  readonly messages: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
  readonly markers: readonly Marker[] | null;
  readonly streaming: Streaming | null;
}

export function holdTranscript(transcript: Transcript, markers: readonly Marker[] | null = null): HeldTranscript {
  return {
    version: transcript.version,
    view: transcript.view,
    hash: transcript.hash,
    messages: transcript.messages,
    toolCards: transcript.toolCards,
    markers,
    streaming: transcript.streaming ?? null,
  };
}

/**
 * Applies a `since` delta with the client library's rules (`rowsAfterDelta`, `listAfterDelta`, `streamingAfterDelta`):
 * keep the first `from` rows held, append `messages`, keep the lists a compact patch leaves out, and the streaming
 * output likewise. A patch older than what is held changes nothing; one that cannot apply (cut from a version we
 * do not hold, keeping more rows or text than we hold) answers null, so the caller loads the whole transcript and
 * opens the feed again.
 */
export function applyPatch(held: HeldTranscript, patch: TranscriptPatch): HeldTranscript | null {
  if (patch.version < held.version) return held;
  // A compact patch applies to the version it was cut from only, whatever its `from`.
  if (leavesOut(patch) && held.version !== patch.since) return null;
  const messages = rowsAfterDelta(held, patch);
  if (messages === null) return null;
  // The live feed asks for compact patches: the lists only when they changed, the streaming output as a change.
  const toolCards = listAfterDelta(held.toolCards as ToolCard[], patch.toolCards);
  const markers = listAfterDelta(held.markers as Marker[] | null, patch.markers);
  const streaming = 'streamingDelta' in patch ? streamingAfterDelta(held.streaming, patch.streamingDelta) : (patch.streaming ?? null);
  if (toolCards === undefined || markers === undefined || streaming === undefined) return null;
  return {
    version: patch.version,
    view: held.view,
    hash: patch.hash,
    messages,
    toolCards,
    markers,
    streaming,
  };
}

/** The visible text of a row: a string, or its text parts joined. */
export function textOf(content: MessageRow['content']): string {
  if (typeof content === 'string') return content;
  return contentParts(content)
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n\n');
}
