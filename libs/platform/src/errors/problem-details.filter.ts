import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { type FieldProblem, isErrorCode, problem, ProblemError, type ProblemDetails, RETRY_AFTER_BY_CODE, STATUS_BY_CODE } from './problem.js';
import { isClientDisconnect } from './client-disconnect.js';
import { fastifyCodeOf, type FastifyErrorOptions, fromFastify, malformedJson } from './fastify-errors.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './database-unavailable.js';

const pathText = (path: readonly PropertyKey[]) => (path.length > 0 ? path.map(String).join('.') : '(body)');

/** One problem per bad field; an unknown key (strict objects) is named at its own path, one per key. */
export function zodProblems(error: ZodError): FieldProblem[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: pathText([...issue.path, key]), message: 'unknown field' }))
      : [{ path: pathText(issue.path), message: issue.message }],
  );
}

export interface ProblemDetailsOptions extends FastifyErrorOptions {
  readonly onClientDisconnect?: (error: unknown) => void;
  /** A request met an unreachable database (answered 503): reported, not logged per request. */
  readonly onDatabaseUnavailable?: (error: unknown) => void;
  /** The methods the router has for a concrete path; a route-not-found with other methods there is a 405. */
  readonly allowedMethods?: (path: string) => readonly string[];
}

function toProblem(error: unknown, ifMatch: boolean, options: ProblemDetailsOptions): ProblemDetails {
  if (error instanceof ProblemError) return problem(error.status, error.code, error.message, error.errors);
  if (error instanceof ZodError) {
    return problem(400, 'VALIDATION_FAILED', 'The request has invalid fields.', zodProblems(error));
  }
  const fastifyCode = fastifyCodeOf(error);
  const fromBodyReading = fastifyCode ? fromFastify(fastifyCode, options) : undefined;
  if (fromBodyReading) return fromBodyReading;
  const coded = error as { code?: unknown; message?: string; errors?: FieldProblem[] };
  // Data PostgreSQL cannot store (a NUL character, an unpaired surrogate): the request's fault, and nothing
  // was stored because the statement failed whole.
  if (typeof coded?.code === 'string' && /^22(P05|021|P02)$/.test(coded.code)) {
    return problem(400, 'VALIDATION_FAILED', 'The request holds text that cannot be stored (NUL or invalid Unicode).', [
      { path: '(body)', message: 'contains a NUL character or an unpaired surrogate' },
    ]);
  }
  if (isErrorCode(coded?.code)) {
    let status = STATUS_BY_CODE[coded.code];
    if (coded.code === 'STREAM_VERSION_CONFLICT' && ifMatch) status = 412;
    const errors = Array.isArray(coded.errors) ? coded.errors : undefined;
    // One code for every malformed request, whether the edge schema or a domain rule caught it.
    const code = status === 412 ? 'PRECONDITION_FAILED' : coded.code === 'VALIDATION' ? 'VALIDATION_FAILED' : coded.code;
    return problem(status, code, coded.message ?? coded.code, errors);
  }
  if (error instanceof SyntaxError) return malformedJson(error.message);
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 400) {
      return problem(400, 'VALIDATION_FAILED', error.message, [{ path: '(request)', message: error.message }]);
    }
    if (status === 413) return fromFastify('FST_ERR_CTP_BODY_TOO_LARGE', options)!;
    if (status === 415) return fromFastify('FST_ERR_CTP_INVALID_MEDIA_TYPE', options)!;
    const code = status === 404 ? 'ROUTE_NOT_FOUND' : `HTTP_${status}`;
    return problem(status, code, error.message);
  }
  return problem(500, 'INTERNAL', 'An unexpected error occurred; it has been logged.');
}

/** PostgreSQL unreachable: the request stored nothing it was told of, and a retry after a moment is the remedy. */
const databaseUnavailable = () =>
  new ProblemError(
    503,
    'DATABASE_UNAVAILABLE',
    `The database is unavailable, so the request was not acknowledged. Retry in ${DATABASE_RETRY_AFTER_SECONDS} s with the same natural keys (a write that reached the database answers as a duplicate).`,
    undefined,
    { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  );

/**
 * The problem details an error answers, wherever the request came from (an HTTP route, a WebSocket message):
 * `ifMatch` says the precondition came as an `If-Match` header (a conflict is then a 412). A database that
 * cannot be reached is a 503 with `Retry-After`.
 */
export function problemOf(error: unknown, options: ProblemDetailsOptions, ifMatch = false): { body: ProblemDetails; unavailable: boolean } {
  const unavailable = !(error instanceof ProblemError) && isDatabaseUnavailable(error);
  return { body: toProblem(unavailable ? databaseUnavailable() : error, ifMatch, options), unavailable };
}

/**
 * The request as a log line names it: its route template, or for a path no route matched the path without its
 * query (a search's `q` is a session's content, and logs hold none).
 */
const routeOf = (request: FastifyRequest): string => `${request.method} ${request.routeOptions?.url ?? request.url.split('?')[0]}`;

/** Every error leaves as application/problem+json. A client that went away is not a server error. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemDetails');

  constructor(private readonly options: ProblemDetailsOptions) {}

  /** The router's "no route" (a plain 404 HttpException) for a path that exists with other methods: its Allow value. */
  private methodsElsewhere(error: unknown, request: FastifyRequest): string | undefined {
    if (!(error instanceof HttpException) || error.getStatus() !== 404 || !this.options.allowedMethods) return undefined;
    const methods = this.options.allowedMethods(request.url.split('?')[0]);
    if (methods.length === 0 || methods.includes(request.method)) return undefined;
    return methods.join(', ');
  }

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (isClientDisconnect(error, request)) {
      this.options.onClientDisconnect?.(error);
      this.logger.debug(`client went away during ${routeOf(request)} (request ${request.id})`);
      return;
    }
    const allow = this.methodsElsewhere(error, request);
    const unavailable = !(error instanceof ProblemError) && isDatabaseUnavailable(error);
    const answered = unavailable ? databaseUnavailable() : error;
    const body = allow
      ? problem(405, 'METHOD_NOT_ALLOWED', `${request.method} is not a method of this path; it has ${allow}.`)
      : toProblem(answered, Boolean(request.headers['if-match']), this.options);
    const route = routeOf(request);
    if (unavailable) {
      // Logged once per outage by whoever the callback reports to; the request log has this request's line.
      this.options.onDatabaseUnavailable?.(error);
      this.logger.debug(`${route} answered 503, the database is unavailable (request ${request.id}): ${(error as Error).message}`);
    } else if (body.status >= 500) {
      const detail = error instanceof Error ? error.stack ?? error.message : String(error);
      this.logger.error(`${route} failed (request ${request.id}): ${detail}`);
    }
    // A stream that already sent its head (SSE) can only be ended.
    if (reply.sent || reply.raw.headersSent) {
      if (!reply.raw.writableEnded) reply.raw.end();
      return;
    }
    if (answered instanceof ProblemError && answered.headers) reply.headers(answered.headers);
    else if (isErrorCode(body.code) && RETRY_AFTER_BY_CODE[body.code] !== undefined) reply.header('Retry-After', String(RETRY_AFTER_BY_CODE[body.code]));
    if (allow) reply.header('Allow', allow);
    reply.status(body.status).type('application/problem+json').send(JSON.stringify(body));
  }
}
