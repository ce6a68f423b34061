import type { FastifyInstance } from 'fastify';
import type { ApiKey } from './api-keys.js';
import type { Access, AuthenticatedRequest } from './auth.guard.js';
import { authorizeRequest } from './authorize-request.js';
import { RateLimiter } from './rate-limiter.js';

/** What a route needs, by method and Fastify route template; undefined for a route the table does not know. */
export type RouteAccessLookup = (method: string, url: string) => Access | undefined;

/**
 * Authenticates (and authorises, and rate-limits) in `onRequest`, before Fastify reads the body: a request
 * without a valid key is a 401 (a key without the scope a 403) whatever its body, which is never parsed,
 * so a bad JSON or oversized body cannot answer 400 or 413 in its place (issue 12, defect 5). A route the
 * lookup does not know (none before the app is initialised) and a path no route matches are left to the
 * guard and the router, which answer as before. `lookup` is read per request, so it can be filled in once the
 * routes exist.
 */
export function registerAuthentication(
  fastify: FastifyInstance,
  options: { readonly keys: readonly ApiKey[]; readonly limiter: RateLimiter; readonly lookup: () => RouteAccessLookup | undefined },
): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const url = request.routeOptions?.url;
    const lookup = options.lookup();
    if (request.is404 || !url || !lookup) return done();
    const access = lookup(request.method, url) ?? (request.method === 'HEAD' ? lookup('GET', url) : undefined);
    if (!access || access.public) return done();
    try {
      (request as AuthenticatedRequest).apiKey = authorizeRequest(request.headers.authorization, access.scope ?? 'admin', options.keys, options.limiter);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}
