/**
 * The transcript answer's strong ETag. The body is a pure function of (session, version, view) and the
 * hash covers what the fold rendered, so a rendering change in a new release changes the tag as well.
 * It used to come from Express, which hashed every body; here it costs nothing, the hash exists already.
 */
export const transcriptEtag = (view: string, version: number, hash: string, variant = ''): string => `"${view}-${version}-${hash}${variant}"`;

/** `If-None-Match` (RFC 9110 §13.1.2): `*`, or a list of tags compared weakly (a `W/` prefix is ignored). */
export function isNotModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
