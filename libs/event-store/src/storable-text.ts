/**
 * PostgreSQL refuses a NUL character and an unpaired UTF-16 surrogate in text and jsonb. Event data is a `json`
 * column, which would keep their escapes, but the metadata and the read models built from the data (the
 * summary and index rows) are jsonb, and `->>` cannot unescape them: such an append is refused, for every
 * store alike, before it joins a group commit, so it cannot roll back the appends it would have shared a
 * transaction with. In canonical JSON (JSON.stringify's escaping) both appear only as `\u` escapes: a NUL as
 * `\u0000`, a lone surrogate as `\udXXX` (a paired one is written as the character itself).
 */
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

export class UnstorableTextError extends Error {
  /** The SQLSTATE PostgreSQL answers for the same text (untranslatable character), so callers map one code. */
  readonly code = '22P05';
  constructor(readonly streamId: string) {
    super(`an event of stream ${streamId} holds text PostgreSQL cannot store (NUL or an unpaired surrogate)`);
    this.name = 'UnstorableTextError';
  }
}

/** Only a text holding a `\u` escape can hold either (most hold none, and `includes` is far cheaper than the pattern). */
export const unstorable = (text: string): boolean => text.includes('\\u') && UNSTORABLE_ESCAPE.test(text);

export function assertStorable(
  streamId: string,
  canonicalData: readonly string[],
  metadata: readonly string[],
  events: readonly { readonly type: string }[],
): void {
  const bad =
    canonicalData.some(unstorable) || metadata.some(unstorable) || events.some((event) => unstorable(JSON.stringify(event.type)));
  if (bad) throw new UnstorableTextError(streamId);
}
