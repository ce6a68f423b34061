import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pino from 'pino';

const MAX_REQUEST_ID_LENGTH = 128;

/** Fastify's `genReqId`: the caller's `x-request-id` when it is a sane one, else a new UUID. */
export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && given.length > 0 && given.length <= MAX_REQUEST_ID_LENGTH ? given : randomUUID();
}

/** Probes and scrapes would drown the request log. */
const isQuiet = (route: string) => route === '/metrics' || route.startsWith('/health/');

/** Without a route template (an unknown path) the path is logged, never the query (it may carry search text). */
function routeOf(request: FastifyRequest): string {
  const template = request.routeOptions.url;
  if (template) return template;
  const query = request.url.indexOf('?');
  return query < 0 ? request.url : request.url.slice(0, query);
}

/** The `code` of a problem answer (written by whichever part refused the request), read from its body. */
const PROBLEM_CODE = /"code"\s*:\s*"([A-Z0-9_]{1,64})"/;

function problemCodeOf(reply: FastifyReply, payload: unknown): string | undefined {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  const type = reply.getHeader('content-type');
  if (typeof type !== 'string' || !type.startsWith('application/problem+json')) return undefined;
  return PROBLEM_CODE.exec(String(payload).slice(0, 4096))?.[1];
}

function levelOf(status: number): 'info' | 'warn' | 'error' {
  if (status >= 500) return 'error';
  return status >= 400 ? 'warn' : 'info';
}

/**
 * Echoes the request id on every response and writes one short line per finished request: method, route
 * template, status, duration, request id, and for a refusal its problem `code`. No headers, no child logger
 * per request.
 *
 * The id goes onto the raw response so that answers written past Fastify (the hijacked SSE stream) carry
 * it as well; Node merges it into whatever head is written.
 */
export function registerRequestLog(instance: FastifyInstance, log: pino.Logger): void {
  instance.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    reply.raw.setHeader('x-request-id', request.id);
    done();
  });
  if (!log.isLevelEnabled('error')) return;
  const codes = new WeakMap<FastifyRequest, string>();
  instance.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    if (reply.statusCode >= 400) {
      const code = problemCodeOf(reply, payload);
      if (code) codes.set(request, code);
    }
    done(null, payload);
  });
  instance.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const route = routeOf(request);
    const level = levelOf(reply.statusCode);
    if (!isQuiet(route) && log.isLevelEnabled(level)) {
      log[level](
        {
          reqId: request.id,
          method: request.method,
          route,
          status: reply.statusCode,
          ...(codes.has(request) ? { code: codes.get(request) } : {}),
          ms: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request',
      );
    }
    done();
  });
}
