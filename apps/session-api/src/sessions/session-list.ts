import { z } from 'zod';
import { SESSION_STATUSES } from '#read-models';

export const sessionListQuery = z.object({
  status: z.enum(SESSION_STATUSES).optional(),
  q: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(500).optional(),
});
export type SessionListQuery = z.infer<typeof sessionListQuery>;
