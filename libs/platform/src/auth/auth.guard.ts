import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { allows, type ApiKey, type Scope } from './api-keys.js';
import { authorizeRequest } from './authorize-request.js';
import { RateLimiter } from './rate-limiter.js';

export const API_KEYS = Symbol('API_KEYS');
export const SCOPE_KEY = 'chronicle:scope';
export const PUBLIC_KEY = 'chronicle:public';

/** Marks a route (or controller) with the scope it needs. */
export const RequireScope = (scope: Scope) => SetMetadata(SCOPE_KEY, scope);

/**
 * Marks a route (or controller) as open to anyone (health, metrics). Closed by default: a route with
 * neither this nor `RequireScope` needs the `admin` scope (and the route-inventory test fails on it).
 */
export const Public = () => SetMetadata(PUBLIC_KEY, true);

export { scopeText } from './authorize-request.js';

export type Access = { readonly public: true } | { readonly public: false; readonly scope: Scope | undefined };

/**
 * What a route needs: the handler's own declaration wins over its controller's; `scope` is undefined when
 * neither declares anything (the guard then asks for `admin`).
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export function accessOf(reflector: Reflector, handler: Function, controller: Function): Access {
  for (const target of [handler, controller]) {
    if (reflector.get<boolean | undefined>(PUBLIC_KEY, target)) return { public: true };
    const scope = reflector.get<Scope | undefined>(SCOPE_KEY, target);
    if (scope) return { public: false, scope };
  }
  return { public: false, scope: undefined };
}

export interface AuthenticatedRequest extends FastifyRequest {
  apiKey?: ApiKey;
}

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEYS) private readonly keys: readonly ApiKey[],
    private readonly limiter: RateLimiter,
  ) {}

  // Decorators are fixed once the app is built: each route's access is read from its metadata once
  // (by controller, then handler: an inherited handler may sit under controllers that declare differently).
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  private readonly accessByRoute = new WeakMap<Function, WeakMap<Function, Access>>();

  canActivate(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byHandler = this.accessByRoute.get(controller);
    if (byHandler === undefined) this.accessByRoute.set(controller, (byHandler = new WeakMap()));
    let access = byHandler.get(handler);
    if (access === undefined) {
      access = accessOf(this.reflector, handler, controller);
      byHandler.set(handler, access);
    }
    if (access.public) return true;
    // Closed by default: a route that declares nothing is treated as admin-only, never as open.
    const scope: Scope = access.scope ?? 'admin';
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // The onRequest hook (authentication.hook.ts) decided already, before the body was read.
    if (request.apiKey && allows(request.apiKey, scope)) return true;
    request.apiKey = authorizeRequest(request.headers.authorization, scope, this.keys, this.limiter);
    return true;
  }
}
