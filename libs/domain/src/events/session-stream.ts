/** Stream ids are made in one place: one stream per session. */
export const SESSION_STREAM_PREFIX = 'session-';

export function toSessionStreamId(sessionId: string): string {
  return `${SESSION_STREAM_PREFIX}${sessionId}`;
}

export function fromSessionStreamId(streamId: string): string | null {
  return streamId.startsWith(SESSION_STREAM_PREFIX) ? streamId.slice(SESSION_STREAM_PREFIX.length) : null;
}

/** The id alphabet of the contract. */
export const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
