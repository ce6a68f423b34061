import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  readonly method: string;
  readonly url: string;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/v1/sessions/:id/live` → a regex for concrete paths; `*` is the rest of the path. */
function patternOf(url: string): RegExp {
  const body = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : escape(segment)))
    .join('/');
  return new RegExp(`^${body.replace(/\/$/, '')}/?$`);
}

/**
 * Every route the Fastify router holds, collected as it is registered (an `onRoute` hook set before any
 * route): the route inventory test reads it, and a path asked with a method it lacks is answered 405 with
 * the methods it has.
 */
export class RouteTable {
  readonly routes: RouteEntry[] = [];
  private readonly patterns: { readonly method: string; readonly pattern: RegExp }[] = [];

  register(fastify: FastifyInstance): void {
    fastify.addHook('onRoute', (options) => {
      for (const method of [options.method].flat()) this.add(String(method).toUpperCase(), options.url);
    });
  }

  add(method: string, url: string): void {
    this.routes.push({ method, url });
    this.patterns.push({ method, pattern: patternOf(url) });
  }

  /** The methods a concrete path (no query) has, in registration order; empty when no route matches it. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const { method, pattern } of this.patterns) if (pattern.test(path)) methods.add(method);
    return [...methods];
  }
}
