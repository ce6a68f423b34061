import { problem, type ProblemDetails } from './problem.js';

/** What the problem answers need to know of the configuration. */
export interface FastifyErrorOptions {
  /** The configured body limit, named in the 413 answer. */
  readonly bodyLimitBytes: number;
}

/** The code of a Fastify error, whether it arrives as it is or wrapped by Nest in an HttpException. */
export function fastifyCodeOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  return code?.startsWith('FST_') ? code : undefined;
}

export const malformedJson = (reason: string) =>
  problem(400, 'VALIDATION_FAILED', 'The request body is not valid JSON.', [{ path: '(body)', message: `malformed JSON: ${reason}` }]);

export function fromFastify(code: string, options: FastifyErrorOptions): ProblemDetails | undefined {
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(
        413,
        'PAYLOAD_TOO_LARGE',
        `The request body is larger than the limit of ${options.bodyLimitBytes} bytes (CHRONICLE_BODY_LIMIT_BYTES).`,
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      // Fastify's message says only "not valid JSON".
      return malformedJson('not parseable');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problem(400, 'VALIDATION_FAILED', 'The request body does not match its Content-Length.', [
        { path: '(body)', message: 'length differs from Content-Length' },
      ]);
    default:
      return undefined;
  }
}
