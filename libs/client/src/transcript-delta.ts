/** What a `since` delta carries of the rows: the version it applies to, how many rows of it stay, the rows after them. */
export interface RowDelta<Row> {
  readonly since: number;
  readonly from: number;
  readonly messages: readonly Row[];
}

/**
 * The rows a `since` delta (a live `patch`, or `GET …/transcript?since=`) makes of the rows held at `held.version`:
 * keep the first `from`, append `messages` (README "Watching a session while it streams"). A delta with `from: 0`
 * needs nothing held. Null when it cannot apply: cut from another version than the one held (a patch missed, or a
 * stream resumed from elsewhere), or keeping more rows than are held; the caller then loads the whole transcript.
 * A delta that keeps every row and adds none answers the held array itself (only the streaming output moved).
 * The one rule of the client library's verified transcript and of the admin dashboard's live view.
 */
export function rowsAfterDelta<Row>(held: { readonly version: number; readonly messages: readonly Row[] } | null, delta: RowDelta<Row>): readonly Row[] | null {
  if (delta.from === 0) return delta.messages;
  if (held === null || held.version !== delta.since || delta.from > held.messages.length) return null;
  if (delta.messages.length === 0 && delta.from === held.messages.length) return held.messages;
  return held.messages.slice(0, delta.from).concat(delta.messages);
}

/**
 * A list a compact patch (`/live?patches=1&compact=1`) sends only when it changed since the stream's last patch
 * (`toolCards`, `markers`): the one sent, else the one held. `undefined` when neither is there (nothing held):
 * the caller loads the whole transcript and opens the stream again, whose first patch carries every list.
 */
export const listAfterDelta = <Item>(held: Item[] | null | undefined, sent: Item[] | undefined): Item[] | undefined => sent ?? held ?? undefined;

/**
 * Whether a patch leaves out something the stream's last patch left the client (a compact patch: a list, or the
 * streaming output as a change that keeps some of it). Such a patch applies only to the version it was cut from
 * (its `since`), even with `from: 0`.
 */
export function leavesOut(delta: { readonly toolCards?: unknown; readonly markers?: unknown; readonly streamingDelta?: StreamingChange<unknown> | null }): boolean {
  const streaming = delta.streamingDelta;
  const partial = streaming !== undefined && streaming !== null && (streaming.textFrom > 0 || streaming.reasoningFrom > 0 || streaming.toolCards === undefined);
  return delta.toolCards === undefined || delta.markers === undefined || partial;
}

/** The pending turn's streaming output, as a patch carries it whole (`streaming`). */
export interface Streaming<Card> {
  readonly runId: string;
  readonly text: string;
  readonly reasoning: string;
  readonly toolCards: Card[];
}

/** A compact patch's `streamingDelta` (`/live?patches=1&compact=1`): the streaming output as a change of the one sent before. */
export interface StreamingChange<Card> {
  readonly runId: string;
  readonly textFrom: number;
  readonly text: string;
  readonly reasoningFrom: number;
  readonly reasoning: string;
  readonly toolCards?: Card[];
}

/**
 * The streaming output a `streamingDelta` makes of the one held (the stream's previous patch's): keep the first
 * `textFrom` code units of the text and append `text`, the same for the reasoning, and take the tool cards when
 * the delta has them. Null when no turn is pending (`delta` null). `undefined` when it cannot apply: it needs a
 * base (keeps text, reasoning or cards) of another run than the one held, or keeps more than is held; the
 * caller then loads the whole transcript (`streaming=1`) and opens the stream again, whose first delta is whole.
 */
export function streamingAfterDelta<Card>(held: Streaming<Card> | null, delta: StreamingChange<Card> | null): Streaming<Card> | null | undefined {
  if (delta === null) return null;
  const whole = delta.textFrom === 0 && delta.reasoningFrom === 0 && delta.toolCards !== undefined;
  if (!whole && (held === null || held.runId !== delta.runId || delta.textFrom > held.text.length || delta.reasoningFrom > held.reasoning.length)) return undefined;
  return {
    runId: delta.runId,
    text: delta.textFrom === 0 ? delta.text : held!.text.slice(0, delta.textFrom) + delta.text,
    reasoning: delta.reasoningFrom === 0 ? delta.reasoning : held!.reasoning.slice(0, delta.reasoningFrom) + delta.reasoning,
    toolCards: delta.toolCards ?? held!.toolCards,
  };
}
