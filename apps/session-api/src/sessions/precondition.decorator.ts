import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemError } from '#platform';

/**
 * `expectedVersion` in the body or `If-Match: "n"` (409 vs 412 when the stream moved on). Both given and
 * different is a 400: the client contradicts itself.
 */
export function expectedVersionOf(bodyVersion: number | undefined, ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined) return bodyVersion;
  const match = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(ifMatch);
  if (!match) {
    throw new ProblemError(400, 'VALIDATION_FAILED', 'If-Match must be a stream version such as "12".', [
      { path: 'header.If-Match', message: 'must be a quoted non-negative integer' },
    ]);
  }
  const headerVersion = Number(match[1]);
  if (bodyVersion !== undefined && bodyVersion !== headerVersion) {
    throw new ProblemError(400, 'VALIDATION_FAILED', 'expectedVersion and If-Match disagree.', [
      { path: 'expectedVersion', message: `is ${bodyVersion} but If-Match says ${headerVersion}` },
    ]);
  }
  return headerVersion;
}

/**
 * The factory behind `@Precondition()`. It sees the raw body (parameter decorators run beside the body's
 * pipe, not after it), so a body `expectedVersion` that is not a version is left to the body schema, which
 * refuses it naming the field.
 */
export function preconditionOf(_data: unknown, context: ExecutionContext): number | undefined {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const raw = (request.body as { expectedVersion?: unknown } | null | undefined)?.expectedVersion;
  const bodyVersion = typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 ? raw : undefined;
  const ifMatch = request.headers['if-match'];
  return expectedVersionOf(bodyVersion, Array.isArray(ifMatch) ? ifMatch.join(', ') : ifMatch);
}

/** `@Precondition() expectedVersion: number | undefined` — the write's precondition from the body or `If-Match`. */
export const Precondition = createParamDecorator(preconditionOf);
