import type { RenderedTranscript } from '#domain';

/** `"messages":…,"toolCards":…,"hash":"…"` per transcript: a token's new version reuses the transcript, and so its JSON. */
const fragments = new WeakMap<RenderedTranscript, string>();

function fragmentOf(transcript: RenderedTranscript): string {
  let fragment = fragments.get(transcript);
  if (fragment === undefined) {
    const { messages, toolCards, hash } = transcript;
    fragment = JSON.stringify({ messages, toolCards, hash }).slice(1, -1);
    fragments.set(transcript, fragment);
  }
  return fragment;
}

const members = (value: Record<string, unknown>): string => {
  const json = JSON.stringify(value);
  return json.length > 2 ? json.slice(1, -1) : '';
};

/**
 * The JSON of `{ ...head, messages, toolCards, hash, ...tail }`, with the transcript's part serialised once
 * however many versions share it: on a long session the rows are most of the answer, and a streamed token
 * changes only `version`. Same bytes as `JSON.stringify` of that object.
 */
export function transcriptAnswerJson(head: Record<string, unknown>, transcript: RenderedTranscript, tail: Record<string, unknown> = {}): string {
  const parts = [members(head), fragmentOf(transcript), members(tail)].filter((part) => part !== '');
  return `{${parts.join(',')}}`;
}
