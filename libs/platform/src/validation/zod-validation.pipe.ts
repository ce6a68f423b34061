import { type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { zodProblems } from '../errors/problem-details.filter.js';
import { ProblemError } from '../errors/problem.js';

/**
 * Validates (and types) a body or query at the edge; every bad field is named, nothing is stored. `plain`, when
 * given, answers the schema's parse for a hot route's common case without zod (null for anything else, which the
 * schema then parses): it must answer exactly what the schema would.
 */
export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(
    private readonly schema: S,
    private readonly where: 'body' | 'query' = 'body',
    private readonly plain?: (value: unknown) => z.infer<S> | null,
  ) {}

  transform(value: unknown): z.infer<S> {
    const plain = this.plain?.(value);
    if (plain !== undefined && plain !== null) return plain;
    const parsed = this.schema.safeParse(value ?? (this.where === 'body' ? undefined : {}));
    if (parsed.success) return parsed.data;
    const errors = zodProblems(parsed.error).map((p) => ({
      ...p,
      path: p.path === '(body)' ? `(${this.where})` : this.where === 'query' ? `query.${p.path}` : p.path,
    }));
    throw new ProblemError(400, 'VALIDATION_FAILED', `The request ${this.where} has invalid fields.`, errors);
  }
}
