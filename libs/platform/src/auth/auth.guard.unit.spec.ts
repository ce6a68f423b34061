import { Controller, Get, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemError } from '../errors/problem.js';
import { parseApiKeys } from './api-keys.js';
import { accessOf, ApiKeyGuard, Public, RequireScope } from './auth.guard.js';
import { RateLimiter } from './rate-limiter.js';

@Controller('open')
@Public()
class OpenController {
  @Get()
  open() {}
  @Get('closed')
  @RequireScope('read')
  closed() {}
}

@Controller('plain')
class UndeclaredController {
  @Get()
  forgotten() {}
  @Get('open')
  @Public()
  open() {}
}

const keys = parseApiKeys('r:read,a:admin');
const guard = new ApiKeyGuard(new Reflector(), keys, new RateLimiter());
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
const context = (controller: Function, handler: Function, authorization?: string) =>
  ({
    getHandler: () => handler,
    getClass: () => controller,
    switchToHttp: () => ({ getRequest: () => ({ headers: authorization ? { authorization } : {} }) }),
  }) as unknown as ExecutionContext;

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return [(error as ProblemError).status, (error as ProblemError).message];
  }
  return 'let through';
};

describe('ApiKeyGuard: closed by default', () => {
  it('reads the handler before its controller', () => {
    const reflector = new Reflector();
    expect(accessOf(reflector, OpenController.prototype.open, OpenController)).toEqual({ public: true });
    expect(accessOf(reflector, OpenController.prototype.closed, OpenController)).toEqual({ public: false, scope: 'read' });
    expect(accessOf(reflector, UndeclaredController.prototype.open, UndeclaredController)).toEqual({ public: true });
    expect(accessOf(reflector, UndeclaredController.prototype.forgotten, UndeclaredController)).toEqual({ public: false, scope: undefined });
  });

  it('lets a public route through without a key, never one that declares nothing', () => {
    expect(guard.canActivate(context(OpenController, OpenController.prototype.open))).toBe(true);
    expect(refusal(() => guard.canActivate(context(UndeclaredController, UndeclaredController.prototype.forgotten)))).toEqual([
      401,
      'Send an API key as "Authorization: Bearer <key>".',
    ]);
  });

  it('treats a route that declares nothing as admin-only', () => {
    const forgotten = UndeclaredController.prototype.forgotten;
    expect(refusal(() => guard.canActivate(context(UndeclaredController, forgotten, 'Bearer r')))).toEqual([
      403,
      'This route needs the "admin" scope.',
    ]);
    expect(guard.canActivate(context(UndeclaredController, forgotten, 'Bearer a'))).toBe(true);
  });
});
