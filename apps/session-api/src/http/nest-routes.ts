import { type INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';

/** `/v1/sessions/:id/`, `v1//sessions` → `/v1/sessions/:id`, `/v1/sessions`: one spelling for Nest's and Fastify's paths. */
export const normaliseRoutePath = (...parts: string[]) => `/${parts.join('/')}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');

/** `/v1/sessions/:id` → `/v1/sessions/{id}`, as OpenAPI spells a path. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

export interface NestRoute {
  /** `GET`, `POST`, … */
  readonly method: string;
  /** As the router holds it: `/v1/sessions/:id/transcript`. */
  readonly path: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  readonly controller: Function;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  readonly handler: Function;
}

/**
 * Every controller method Nest mapped, read from the controllers' metadata: what the access table of the
 * authentication hook and the OpenAPI document are built from, so neither keeps a second list of routes.
 */
export function nestRoutes(app: INestApplication): NestRoute[] {
  const routes: NestRoute[] = [];
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
        for (const base of bases) for (const path of [paths].flat()) routes.push({ method, path: normaliseRoutePath(base, path), controller, handler });
      }
    }
  }
  return routes;
}
