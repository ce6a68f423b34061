/**
 * A refusal by a domain rule. `code` is stable (clients and the problem-details filter match on it); the shell
 * maps it to an HTTP status in one place. `errors` names every bad field of a VALIDATION refusal.
 */
export type DomainErrorCode =
  | 'VALIDATION'
  | 'SESSION_NOT_FOUND'
  | 'RUN_NOT_FOUND'
  | 'SESSION_ALREADY_EXISTS'
  | 'SESSION_ARCHIVED'
  | 'SESSION_ERASED'
  | 'TURN_IN_PROGRESS'
  | 'TURN_NOT_PENDING'
  | 'TURN_ALREADY_DECIDED'
  | 'MARKER_NOT_PENDING'
  | 'KEEP_COUNT_OUT_OF_RANGE';

export interface FieldError {
  readonly path: string;
  readonly message: string;
}

export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly errors: readonly FieldError[] = [],
  ) {
    super(message);
  }
}

export const isDomainError = (error: unknown): error is DomainError => error instanceof DomainError;
