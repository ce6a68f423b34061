import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

export const ADMIN_PREFIX = '/admin';

/**
 * The dashboard's own policy: scripts, styles and fetches from this origin only, images from it or inline
 * data, never framed. Content from sessions is rendered as text (the UI never sets HTML), and this is the net
 * under that rule.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * `dist/admin`, where `npm run build` puts the Vite build: found by walking up from this module, which runs
 * from `apps/…` under the tests and from `dist/apps/…` after a build.
 */
export function findAdminBuild(from = dirname(fileURLToPath(import.meta.url))): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'dist', 'admin');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

/**
 * Serves the dashboard's static files at `/admin/` on the API's own origin (its fetches need no CORS). The
 * routes are public like `/docs`: the page holds no data, every `/v1` call it makes carries the key. Without a
 * build, `/admin/…` says how to make one.
 */
export function registerAdminDashboard(fastify: FastifyInstance, root = findAdminBuild()): void {
  // The router ignores trailing slashes: `/admin` is `/admin/` (the page's asset paths are absolute).
  if (!root) {
    fastify.get(`${ADMIN_PREFIX}/*`, (_request, reply) =>
      reply
        .status(404)
        .type('application/problem+json')
        .send({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'The admin dashboard is not built: run `npm run build`.', code: 'ADMIN_NOT_BUILT' }),
    );
    return;
  }
  const page = readFileSync(join(root, 'index.html'));
  // The page itself at `/admin` (and `/admin/`: the router ignores trailing slashes), revalidated each time.
  fastify.get(ADMIN_PREFIX, (_request, reply) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(page);
  });
  fastify.register(fastifyStatic, {
    root,
    prefix: `${ADMIN_PREFIX}/`,
    decorateReply: false,
    index: false,
    wildcard: true,
    cacheControl: false,
    setHeaders: (response, path) => {
      // Hashed asset names change with their content.
      response.header('Cache-Control', path.includes(join('admin', 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache');
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.header(name, value);
    },
  });
}
