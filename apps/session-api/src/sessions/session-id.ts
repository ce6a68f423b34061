import { Param, type PipeTransform } from '@nestjs/common';
import { ID_PATTERN } from '#domain';
import { ProblemError } from '#platform';

/** Ids follow the contract's alphabet; anything else is a 400 naming the parameter. */
export function checkId(value: string, name: string): string {
  if (!ID_PATTERN.test(value)) {
    throw new ProblemError(400, 'VALIDATION_FAILED', `The path parameter ${name} is not a valid id.`, [
      { path: name, message: 'must match [A-Za-z0-9_.:-]{1,128}' },
    ]);
  }
  return value;
}

/** The pipe behind `@IdParam`: a path id checked against the contract's alphabet. */
export class IdPipe implements PipeTransform<string, string> {
  constructor(private readonly name: string) {}

  transform(value: string): string {
    return checkId(value, this.name);
  }
}

/** `@IdParam('id') id: string` — a path parameter that is a contract id (400 naming it otherwise). */
export const IdParam = (name: string): ParameterDecorator => Param(name, new IdPipe(name));
