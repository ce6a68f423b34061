import { type CanActivate, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../errors/problem.js';
import { allows, type ApiKey, findKey, type Scope } from './api-keys.js';
import { RateLimiter } from './rate-limiter.js';

export const API_KEYS = Symbol('API_KEYS');
const SCOPE_KEY = 'chronicle:scope';

/** Marks a route (or controller) with the scope it needs; routes without it are public (health, metrics). */
export const RequireScope = (scope: Scope) => SetMetadata(SCOPE_KEY, scope);

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
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(SCOPE_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!scope) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new ProblemError(401, 'UNAUTHENTICATED', 'Send an API key as "Authorization: Bearer <key>".');
    const key = findKey(this.keys, match[1]);
    if (!key) throw new ProblemError(401, 'UNAUTHENTICATED', 'The API key is not known.');
    if (!allows(key, scope)) {
      throw new ProblemError(403, 'FORBIDDEN', `This route needs the "${scope}" scope (or "admin").`);
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
