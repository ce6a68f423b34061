import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../errors/problem.js';
import { allows, type ApiKey, findKey, type Scope } from './api-keys.js';
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

/** The scopes that satisfy `scope`, each named once: `admin` implies the others. */
export function scopeText(scope: Scope): string {
  return scope === 'admin' ? 'the "admin" scope' : `the "${scope}" scope (or "admin")`;
}

const CHALLENGE = 'Bearer realm="chronicle"';

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

  canActivate(context: ExecutionContext): boolean {
    const access = accessOf(this.reflector, context.getHandler(), context.getClass());
    if (access.public) return true;
    // Closed by default: a route that declares nothing is treated as admin-only, never as open.
    const scope: Scope = access.scope ?? 'admin';
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) {
      throw new ProblemError(401, 'UNAUTHENTICATED', 'Send an API key as "Authorization: Bearer <key>".', undefined, {
        'WWW-Authenticate': CHALLENGE,
      });
    }
    const key = findKey(this.keys, match[1]);
    if (!key) {
      throw new ProblemError(401, 'UNAUTHENTICATED', 'The API key is not known.', undefined, {
        'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"`,
      });
    }
    if (!allows(key, scope)) {
      throw new ProblemError(403, 'FORBIDDEN', `This route needs ${scopeText(scope)}.`);
    }
    const limit = this.limiter.limitOf(key.rateLimitPerMinute);
    const wait = this.limiter.take(key.key, limit);
    if (wait > 0) {
      throw new ProblemError(
        429,
        'RATE_LIMITED',
        `Too many requests for this API key (limit ${limit} per minute); retry in ${wait} s.`,
        undefined,
        { 'Retry-After': String(wait) },
      );
    }
    request.apiKey = key;
    return true;
  }
}
