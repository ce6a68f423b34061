import { ID_PATTERN } from '#domain';
import { ProblemError } from '#platform';

/** Path ids follow the contract's alphabet; anything else is a 400 naming the parameter. */
export function checkId(value: string, name: string): string {
  if (!ID_PATTERN.test(value)) {
    throw new ProblemError(400, 'VALIDATION_FAILED', `The path parameter ${name} is not a valid id.`, [
      { path: name, message: 'must match [A-Za-z0-9_.:-]{1,128}' },
    ]);
  }
  return value;
}
