import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../errors/problem.js';

const decodes = (segment: string): boolean => {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
};

/** The indexes of the path's `/`-separated segments (query left out) that are not valid percent-encoding. */
export function malformedSegments(url: string): number[] {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (!path.includes('%')) return [];
  return path.split('/').flatMap((segment, index) => (decodes(segment) ? [] : [index]));
}

/**
 * Fastify's `rewriteUrl`: each `%` of a segment that does not decode (`%ZZ`, a cut or invalid UTF-8 escape) is
 * written `%25`, so the router finds the route instead of answering its own non-problem 400 before any hook
 * ran (no authentication, request log or metrics). The segment then decodes to the text the client sent, and
 * `registerPathEncodingCheck` refuses it naming the parameter. Every other URL is left as it is.
 */
export function escapeMalformedSegments(url: string): string {
  const malformed = malformedSegments(url);
  if (malformed.length === 0) return url;
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  const segments = path.split('/').map((segment, index) => (malformed.includes(index) ? segment.replaceAll('%', '%25') : segment));
  return segments.join('/') + (query < 0 ? '' : url.slice(query));
}

/** The route template's names for the path segments at `indexes` (`:id` → `id`, `*` for the wildcard's rest). */
function parametersAt(template: string, indexes: readonly number[]): string[] {
  const parts = template.split('/');
  const names = indexes.map((index) => {
    const part = parts[index];
    if (part?.startsWith(':')) return part.slice(1);
    return parts.at(-1) === '*' && index >= parts.length - 1 ? '*' : '(path)';
  });
  return [...new Set(names)];
}

/**
 * A request whose path `escapeMalformedSegments` rewrote is a 400 problem naming each path parameter that was
 * not valid percent-encoding, after authentication (registered after it) and before the body is read, so
 * nothing is stored. A path no route matches is left to the router's 404.
 */
export function registerPathEncodingCheck(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const template = request.routeOptions?.url;
    if (request.originalUrl === request.url || request.is404 || !template) return done();
    const names = parametersAt(template, malformedSegments(request.originalUrl));
    if (names.length === 0) return done();
    const which = names.length === 1 ? `The path parameter ${names[0]} is` : `The path parameters ${names.join(', ')} are`;
    done(
      new ProblemError(
        400,
        'VALIDATION_FAILED',
        `${which} not valid percent-encoding.`,
        names.map((path) => ({ path, message: 'malformed percent-encoding' })),
      ),
    );
  });
}
