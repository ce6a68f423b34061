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
