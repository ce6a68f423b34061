import { type INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { type Access, accessOf, type RouteAccessLookup } from '#platform';

/** `/v1/sessions/:id/`, `v1//sessions` → `/v1/sessions/:id`, `/v1/sessions`: one spelling for Nest's and Fastify's paths. */
const normalise = (...parts: string[]) => `/${parts.join('/')}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');

/**
 * What every Nest route needs (`@Public()`, `@RequireScope()`, or admin when it declares nothing), keyed by
 * `METHOD /path` as the router holds it, read once from the controllers' metadata after the app is
 * initialised: the authentication hook decides with it before a body is read.
 */
export function routeAccessLookup(app: INestApplication): RouteAccessLookup {
  const reflector = app.get(Reflector);
  const table = new Map<string, Access>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
      const controller = wrapper.metatype as Function;
      const prototype = controller.prototype as Record<string, unknown>;
      const bases = [Reflect.getMetadata(PATH_METADATA, controller) ?? ''].flat() as string[];
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (paths === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const access = accessOf(reflector, handler, controller);
        for (const base of bases) for (const path of [paths].flat()) table.set(`${method} ${normalise(base, path)}`, access);
      }
    }
  }
  return (method, url) => table.get(`${method} ${normalise(url)}`);
}
