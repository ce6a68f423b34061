import { ProblemError } from '../errors/problem.js';
import { allows, type ApiKey, findKey, type Scope } from './api-keys.js';
import { RateLimiter } from './rate-limiter.js';

const CHALLENGE = 'Bearer realm="chronicle"';

/** The scopes that satisfy `scope`, each named once: `admin` implies the others. */
export function scopeText(scope: Scope): string {
  return scope === 'admin' ? 'the "admin" scope' : `the "${scope}" scope (or "admin")`;
}

/**
 * The one access decision of a keyed route: 401 without a well-formed known key, 403 without the scope,
 * 429 over the key's rate limit; else the key. Keys are compared in constant time (`findKey`) and never
 * appear in an answer or a log line.
 */
export function authorizeRequest(
  authorization: string | undefined,
  scope: Scope,
  keys: readonly ApiKey[],
  limiter: RateLimiter,
): ApiKey {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) {
    throw new ProblemError(401, 'UNAUTHENTICATED', 'Send an API key as "Authorization: Bearer <key>".', undefined, {
      'WWW-Authenticate': CHALLENGE,
    });
  }
  const key = findKey(keys, match[1]);
  if (!key) {
    throw new ProblemError(401, 'UNAUTHENTICATED', 'The API key is not known.', undefined, {
      'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"`,
    });
  }
  if (!allows(key, scope)) throw new ProblemError(403, 'FORBIDDEN', `This route needs ${scopeText(scope)}.`);
  const limit = limiter.limitOf(key.rateLimitPerMinute);
  const wait = limiter.take(key.key, limit);
  if (wait > 0) throw rateLimited(limit, wait);
  return key;
}

/** The answer to a request (or an ingest message) over its key's rate limit: 429, naming the limit and the wait. */
export const rateLimited = (limit: number, wait: number): ProblemError =>
  new ProblemError(429, 'RATE_LIMITED', `Too many requests for this API key (limit ${limit} per minute); retry in ${wait} s.`, undefined, {
    'Retry-After': String(wait),
  });
