import { z } from 'zod';

/** `POST /v1/audit`: optionally only the sessions whose stream changed at or after `since` (ISO 8601 with offset). */
export const startAuditBody = z
  .strictObject({
    since: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset, e.g. 2026-01-31T00:00:00Z' }).optional(),
  })
  .optional();

/** Job ids are the UUIDs this service hands out. */
export const jobIdParam = z.uuid({ message: 'must be an audit job id (a UUID)' });
