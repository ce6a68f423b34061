import { chainRows, type MessageRow as DomainRow, type ToolCard as DomainToolCard, transcriptHashOf } from '#domain';
import type { Marker, MessageRow, StreamingDelta, StreamingOutput, ToolCard, TranscriptDelta, TranscriptPatchEvent, TranscriptView } from './api-types.js';
import { leavesOut, listAfterDelta, rowsAfterDelta, streamingAfterDelta } from './transcript-delta.js';

/** A transcript the watcher holds: its content checked against the hash the service served for that version. */
export interface TranscriptState {
  readonly sessionId: string;
  readonly view: TranscriptView;
  readonly version: number;
  readonly messages: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
  readonly markers: readonly Marker[];
  /** The service's hash of `messages` + `toolCards`, which the client computed again and found equal. */
  readonly hash: string;
  /** What the pending turn has streamed so far: display-only, outside the rows and the hash. */
  readonly streaming: StreamingOutput | null;
  /** How this state was reached: a `patch` applied to the one before, or a `transcript` fetched whole. */
  readonly source: 'patch' | 'transcript';
  /** The version the patch or the fetched delta applied to (0 for a whole transcript). */
  readonly since: number;
}

/** A state and the chain links of its rows (README "Transcript hash"), so the next patch hashes only its new rows. */
export interface HeldTranscript {
  readonly state: TranscriptState;
  readonly links: readonly string[];
}

/**
 * The transcript hash as the service computes it: the domain's own function (`#domain`), so a client can never
 * disagree with the server about it. The contract's row shapes are the domain's, as JSON.
 */
export function chainOf(messages: readonly MessageRow[], previous?: HeldTranscript): string[] {
  const rows = messages as readonly DomainRow[];
  return chainRows(rows, previous && { messages: previous.state.messages as readonly DomainRow[], links: previous.links });
}

export const hashOf = (links: readonly string[], toolCards: readonly ToolCard[]): string => transcriptHashOf(links, toolCards as readonly DomainToolCard[]);

/** A `since` answer, a patch, or a compact patch (`compact=1`: lists absent when unchanged, `streamingDelta`). */
type Delta = Pick<TranscriptPatchEvent, 'version' | 'hash' | 'since' | 'from' | 'messages'> & {
  readonly toolCards?: ToolCard[];
  readonly markers?: Marker[];
  readonly streaming?: StreamingOutput | null;
  readonly streamingDelta?: StreamingDelta | null;
};

/**
 * Applies a `since` delta (a live `patch`, or `GET …/transcript?since=`) to what is held (`rowsAfterDelta`).
 * Answers the new state when its hash is the one served, and null when it is not, or when the delta cannot apply
 * (cut from another base than the one held): then the whole transcript is fetched again.
 */
export function applyDelta(held: HeldTranscript | null, delta: Delta, base: { sessionId: string; view: TranscriptView; source: TranscriptState['source'] }): HeldTranscript | null {
  // A compact patch applies to the version it was cut from only, whatever its `from`.
  if (leavesOut(delta) && held?.state.version !== delta.since) return null;
  const messages = rowsAfterDelta(held?.state ?? null, delta);
  if (messages === null) return null;
  // A compact patch (`compact=1`) sends the lists only when they changed, and the streaming output as a change.
  const toolCards = listAfterDelta(held?.state.toolCards as ToolCard[] | undefined, delta.toolCards);
  const markers = listAfterDelta(held?.state.markers as Marker[] | undefined, delta.markers);
  const streaming = delta.streamingDelta !== undefined ? streamingAfterDelta(held?.state.streaming ?? null, delta.streamingDelta) : (delta.streaming ?? null);
  if (toolCards === undefined || markers === undefined || streaming === undefined) return null;
  // The very rows and cards held (a token's compact patch) hash to the hash held: nothing to compute again.
  const unchanged = held !== null && messages === held.state.messages && toolCards === held.state.toolCards;
  const links = unchanged ? held.links : chainOf(messages, held ?? undefined);
  if ((unchanged ? held.state.hash : hashOf(links, toolCards)) !== delta.hash) return null;
  const state: TranscriptState = {
    ...base,
    version: delta.version,
    messages,
    toolCards,
    markers,
    hash: delta.hash,
    streaming,
    since: delta.since,
  };
  return { state, links };
}

/** A whole transcript fetched as `?since=0` (it carries the markers a plain transcript answer lacks). */
export const applyWhole = (answer: TranscriptDelta, source: TranscriptState['source'] = 'transcript'): HeldTranscript | null =>
  applyDelta(null, { ...answer, from: 0 }, { sessionId: answer.sessionId, view: answer.view, source });
