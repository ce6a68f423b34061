import { z } from 'zod';
import type { ProblemDetails } from './problem.js';

/** Every error answer (`application/problem+json`), as the OpenAPI document names it. */
export const problemSchema = z
  .object({
    type: z.string().describe('A URI naming the kind of problem.'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().describe('The stable error code, e.g. VALIDATION_FAILED, SESSION_NOT_FOUND, STREAM_VERSION_CONFLICT.'),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('Every bad field of a malformed request (400).'),
  })
  .meta({
    id: 'Problem',
    description: 'RFC 9457 problem details. A refused request stores nothing.',
    example: {
      type: 'https://chronicle.dev/problems/validation-failed',
      title: 'Bad Request',
      status: 400,
      detail: 'The request body has invalid fields.',
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'sessionId', message: 'must match [A-Za-z0-9_.:-]{1,128}' }],
    },
  }) satisfies z.ZodType<ProblemDetails>;
