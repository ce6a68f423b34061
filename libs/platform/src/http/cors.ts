import type { FastifyInstance, FastifyReply } from 'fastify';

export const CORS_ALLOW_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';
export const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID';
export const CORS_EXPOSE_HEADERS = 'ETag, x-request-id, Retry-After, WWW-Authenticate, Allow';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** Adds `Origin` to the reply's Vary without dropping what a route put there (Accept-Encoding). */
function varyOnOrigin(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  const values = String(current ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  if (!values.some((value) => value.toLowerCase() === 'origin' || value === '*')) values.push('Origin');
  reply.header('Vary', values.join(', '));
}

/**
 * CORS for the listed exact origins (CHRONICLE_CORS_ORIGINS); none = no CORS headers at all. A preflight
 * from a listed origin is answered 204 before routing and authentication (a browser sends no key with
 * it); an origin not listed gets no CORS headers, so the browser keeps the answer from the page.
 * The headers are set on request, so a route that writes the raw response itself (SSE) sends them too.
 */
export function registerCors(fastify: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  fastify.addHook('onRequest', (request, reply, done) => {
    varyOnOrigin(reply);
    const origin = request.headers.origin;
    if (!origin || !allowed.has(origin)) return done();
    reply.header('Access-Control-Allow-Origin', origin);
    reply.header('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      reply
        .code(204)
        .header('Access-Control-Allow-Methods', CORS_ALLOW_METHODS)
        .header('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS)
        .header('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS)
        .send();
      return;
    }
    done();
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    varyOnOrigin(reply);
    done(null, payload);
  });
}

/** Validates CHRONICLE_CORS_ORIGINS: exact `scheme://host[:port]` origins, comma-separated. */
export function parseCorsOrigins(spec: string | undefined): string[] {
  if (!spec || !spec.trim()) return [];
  return spec
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      let origin: string | undefined;
      try {
        const url = new URL(entry);
        if ((url.protocol === 'http:' || url.protocol === 'https:') && !entry.includes('*')) origin = url.origin;
      } catch {
        origin = undefined;
      }
      if (origin !== entry) {
        throw new Error(
          `CHRONICLE_CORS_ORIGINS entry "${entry}" is not an exact origin (scheme://host[:port], no path or wildcard, e.g. https://dashboard.example.com)`,
        );
      }
      return origin;
    });
}
