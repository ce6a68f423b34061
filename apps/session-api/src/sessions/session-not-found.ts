import { ProblemError } from '#platform';

/** The contract's answer for every route under /v1/sessions/{id} of a session that was never started. */
export const sessionNotFound = (sessionId: string) =>
  new ProblemError(404, 'SESSION_NOT_FOUND', `Session ${sessionId} was never started.`);
