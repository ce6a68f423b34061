import type { Marker, StreamingOutput, ToolCard } from '#domain';

/** A live patch's `streamingDelta`: the streaming output as a change of the one sent before (its schema, live.schemas.ts, satisfies this). */
export interface StreamingDelta {
  readonly runId: string;
  readonly textFrom: number;
  readonly text: string;
  readonly reasoningFrom: number;
  readonly reasoning: string;
  readonly toolCards?: readonly ToolCard[];
}

/**
 * How many leading UTF-16 code units `next` keeps of `held`. A streaming text mostly grows at its end (the
 * `startsWith` case, one comparison); a delivery out of order changes it inside. A cut never splits a surrogate
 * pair, so each part of the delta is well-formed text.
 */
export function keptCodeUnits(held: string, next: string): number {
  let kept: number;
  if (next.startsWith(held)) kept = held.length;
  else {
    const bound = Math.min(held.length, next.length);
    kept = 0;
    while (kept < bound && held.charCodeAt(kept) === next.charCodeAt(kept)) kept += 1;
  }
  const before = next.charCodeAt(kept - 1);
  return kept > 0 && kept < next.length && before >= 0xd800 && before <= 0xdbff ? kept - 1 : kept;
}

/**
 * The `streamingDelta` that turns `held` (the output the stream sent before, or null) into `next`: whole when
 * nothing of the same run is held, else the appended text and reasoning and, when they changed, the tool cards.
 * The client library's `streamingAfterDelta` applies it (a property test holds the two together).
 */
export function streamingDeltaOf(held: StreamingOutput | null, next: StreamingOutput | null): StreamingDelta | null {
  if (next === null) return null;
  if (held === null || held.runId !== next.runId) {
    return { runId: next.runId, textFrom: 0, text: next.text, reasoningFrom: 0, reasoning: next.reasoning, toolCards: next.toolCards };
  }
  const textFrom = keptCodeUnits(held.text, next.text);
  const reasoningFrom = keptCodeUnits(held.reasoning, next.reasoning);
  // The output of one version is shared by every stream, and a followed turn keeps its cards' array until one is
  // added or completed: the same array is the same cards.
  const cardsChanged = held.toolCards !== next.toolCards && JSON.stringify(held.toolCards) !== JSON.stringify(next.toolCards);
  return {
    runId: next.runId,
    textFrom,
    text: next.text.slice(textFrom),
    reasoningFrom,
    reasoning: next.reasoning.slice(reasoningFrom),
    ...(cardsChanged ? { toolCards: next.toolCards } : {}),
  };
}

/** What a patch carries besides the rows, and what the client holds of it after a stream's patch. */
export interface PatchLists {
  readonly toolCards: readonly ToolCard[];
  readonly markers: readonly Marker[];
  readonly streaming: StreamingOutput | null;
}

/**
 * A live patch's body after its rows (`head`): with `compact`, the lists only when they are not the very ones the
 * stream sent last (`held`; a token's version reuses the transcript and view it follows, so its patch carries
 * neither) and the streaming output as a change (`streamingDeltaOf`); else all of it whole.
 */
export function patchBody<Head extends object>(head: Head, next: PatchLists, held: PatchLists | null, compact: boolean) {
  if (!compact) return { ...head, toolCards: next.toolCards, markers: next.markers, streaming: next.streaming };
  return {
    ...head,
    ...(next.toolCards === held?.toolCards ? {} : { toolCards: next.toolCards }),
    ...(next.markers === held?.markers ? {} : { markers: next.markers }),
    streamingDelta: streamingDeltaOf(held?.streaming ?? null, next.streaming),
  };
}
