import type { INestApplication } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Access, accessOf, type RouteAccessLookup } from '#platform';
import { nestRoutes, normaliseRoutePath } from './http/nest-routes.js';

/**
 * What every Nest route needs (`@Public()`, `@RequireScope()`, or admin when it declares nothing), keyed by
 * `METHOD /path` as the router holds it, read once from the controllers' metadata after the app is
 * initialised: the authentication hook decides with it before a body is read.
 */
export function routeAccessLookup(app: INestApplication): RouteAccessLookup {
  const reflector = app.get(Reflector);
  const table = new Map<string, Access>();
  for (const { method, path, handler, controller } of nestRoutes(app)) table.set(`${method} ${path}`, accessOf(reflector, handler, controller));
  // Fastify hands the route's template (one of the table's few), so its normal form is worked out once.
  const byTemplate = new Map<string, Access | undefined>();
  return (method, url) => {
    const key = `${method} ${url}`;
    if (byTemplate.has(key)) return byTemplate.get(key);
    const access = table.get(`${method} ${normaliseRoutePath(url)}`);
    if (byTemplate.size < 10_000) byTemplate.set(key, access);
    return access;
  };
}
