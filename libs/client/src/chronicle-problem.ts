import type { ProblemDetails } from './api-types.js';

export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/** The `code` of a problem the client made up for an answer that carried no problem details (a proxy's 502 page). */
export const UNEXPECTED_ANSWER = 'UNEXPECTED_ANSWER';

const isProblemDetails = (body: unknown): body is ProblemDetails =>
  typeof body === 'object' && body !== null && typeof (body as ProblemDetails).code === 'string' && typeof (body as ProblemDetails).status === 'number';

/**
 * A refused request: the RFC 9457 problem details the service answered (http-api "Errors"), over HTTP or as a
 * `/v1/ingest` reply. `code` is the service's stable error code; `errors` names every bad field of a 400.
 */
export class ChronicleProblem extends Error {
  override readonly name = 'ChronicleProblem';
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly errors: readonly FieldProblem[];

  constructor(problem: ProblemDetails) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.type = problem.type;
    this.title = problem.title;
    this.status = problem.status;
    this.code = problem.code;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
  }

  /** The problem a non-success answer carries; one made up from its status when it carries none. */
  static from(status: number, body: unknown): ChronicleProblem {
    if (isProblemDetails(body)) return new ChronicleProblem(body);
    const text = typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body ?? null).slice(0, 200);
    return new ChronicleProblem({ type: 'about:blank', title: `HTTP ${status}`, status, code: UNEXPECTED_ANSWER, detail: `The service answered ${status} without problem details: ${text}` });
  }
}
