/** RFC 9457 problem details, as the contract spells them. */
export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

export interface ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: string;
  readonly errors?: readonly FieldProblem[];
}

/** An error that already knows its HTTP answer (and the headers that go with it, such as Retry-After). */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    detail: string,
    readonly errors?: readonly FieldProblem[],
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(detail);
    this.name = 'ProblemError';
  }
}

/** Domain and store error codes → HTTP status, in one place. */
/** Every error code a problem answer carries, with its status: the one table (no code here that nothing throws). */
export const STATUS_BY_CODE = {
  VALIDATION_FAILED: 400,
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  SESSION_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  PROJECTION_NOT_FOUND: 404,
  AUDIT_JOB_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  SESSION_ERASED: 410,
  STREAM_VERSION_CONFLICT: 409,
  SESSION_ALREADY_EXISTS: 409,
  TURN_ALREADY_DECIDED: 409,
  TURN_NOT_PENDING: 409,
  TURN_IN_PROGRESS: 409,
  MARKER_NOT_PENDING: 409,
  KEEP_COUNT_OUT_OF_RANGE: 422,
  IDEMPOTENCY_KEY_TAKEN: 409,
  SESSION_ARCHIVED: 409,
  REBUILD_IN_PROGRESS: 409,
  AUDIT_ALREADY_RUNNING: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  DATABASE_UNAVAILABLE: 503,
  NOT_READY: 503,
  WRITE_CONTENTION: 503,
  SHUTTING_DOWN: 503,
} as const satisfies Readonly<Record<string, number>>;

export type ErrorCode = keyof typeof STATUS_BY_CODE;

/** Codes whose answer says when to retry (`Retry-After`, seconds) without the error carrying its own headers. */
export const RETRY_AFTER_BY_CODE: Readonly<Partial<Record<ErrorCode, number>>> = { WRITE_CONTENTION: 1, SHUTTING_DOWN: 1 };

export const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(STATUS_BY_CODE, code);

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function problem(status: number, code: string, detail: string, errors?: readonly FieldProblem[]): ProblemDetails {
  return {
    type: `https://chronicle.dev/problems/${code.toLowerCase().replaceAll('_', '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}
