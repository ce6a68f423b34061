import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ZodError } from 'zod';
import { type FieldProblem, problem, ProblemError, type ProblemDetails, STATUS_BY_CODE } from './problem.js';
import { isClientDisconnect } from './client-disconnect.js';

export function zodProblems(error: ZodError): FieldProblem[] {
  return error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)',
    message: issue.message,
  }));
}

function toProblem(error: unknown, request: Request): ProblemDetails {
  if (error instanceof ProblemError) return problem(error.status, error.code, error.message, error.errors);
  if (error instanceof ZodError) {
    return problem(400, 'VALIDATION_FAILED', 'The request has invalid fields.', zodProblems(error));
  }
  const coded = error as { code?: unknown; message?: string; type?: string; status?: number; errors?: FieldProblem[] };
  if (coded?.type === 'entity.too.large') {
    return problem(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than the configured limit.');
  }
  if (coded?.type === 'entity.parse.failed') {
    return problem(400, 'VALIDATION_FAILED', 'The request body is not valid JSON.', [
      { path: '(body)', message: 'malformed JSON' },
    ]);
  }
  // Data PostgreSQL cannot store (a NUL character, an unpaired surrogate): the request's fault, and nothing
  // was stored because the statement failed whole.
  if (typeof coded?.code === 'string' && /^22(P05|021|P02)$/.test(coded.code)) {
    return problem(400, 'VALIDATION_FAILED', 'The request holds text that cannot be stored (NUL or invalid Unicode).', [
      { path: '(body)', message: 'contains a NUL character or an unpaired surrogate' },
    ]);
  }
  if (typeof coded?.code === 'string' && STATUS_BY_CODE[coded.code]) {
    let status = STATUS_BY_CODE[coded.code];
    if (coded.code === 'STREAM_VERSION_CONFLICT' && request.headers['if-match']) status = 412;
    const errors = Array.isArray(coded.errors) ? coded.errors : undefined;
    // One code for every malformed request, whether the edge schema or a domain rule caught it.
    const code = status === 412 ? 'PRECONDITION_FAILED' : coded.code === 'VALIDATION' ? 'VALIDATION_FAILED' : coded.code;
    return problem(status, code, coded.message ?? coded.code, errors);
  }
  if (error instanceof HttpException) {
    // Nest wraps body-parser failures (malformed JSON, too large) in HttpExceptions.
    const status = error.getStatus();
    if (status === 400) {
      return problem(400, 'VALIDATION_FAILED', 'The request body is not valid JSON.', [
        { path: '(body)', message: `malformed JSON: ${error.message}` },
      ]);
    }
    if (status === 413) return problem(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than the configured limit.');
    const code = status === 404 ? 'ROUTE_NOT_FOUND' : `HTTP_${status}`;
    return problem(status, code, error.message);
  }
  return problem(500, 'INTERNAL', 'An unexpected error occurred; it has been logged.');
}

/** Every error leaves as application/problem+json. A client that went away is not a server error. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemDetails');

  constructor(private readonly onClientDisconnect: (error: unknown) => void = () => undefined) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    if (isClientDisconnect(error, request)) {
      this.onClientDisconnect(error);
      this.logger.debug(`client went away during ${request.method} ${request.url}`);
      return;
    }
    const body = toProblem(error, request);
    if (body.status >= 500) this.logger.error(error instanceof Error ? error.stack ?? error.message : String(error));
    if (response.headersSent) {
      response.end();
      return;
    }
    response.status(body.status).type('application/problem+json').send(JSON.stringify(body));
  }
}
