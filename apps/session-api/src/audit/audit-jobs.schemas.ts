import { z } from 'zod';
import type { RequestHeader, ResponseHeader } from '../docs/api-route.decorator.js';
import type { AuditJobAnswer } from './audit-job.js';
import { sessionAuditAnswer } from './audit.schemas.js';

/** `POST /v1/audit`: optionally only the sessions whose stream changed at or after `since` (ISO 8601 with offset). */
export const startAuditBody = z
  .strictObject({
    since: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset, e.g. 2026-01-31T00:00:00Z' }).optional(),
  })
  .optional();

/** Job ids are the UUIDs this service hands out. */
export const jobIdParam = z.uuid({ message: 'must be an audit job id (a UUID)' });

const count = z.number().int().nonnegative();

/** What `GET /v1/audit/{jobId}` answers, and the `data:` of each event of its `/live`. */
export const auditJobAnswer = z
  .object({
    jobId: z.uuid(),
    status: z.enum(['running', 'completed', 'failed']),
    since: z.string().nullable().describe('The ISO time filter the job was started with (null: every session).'),
    startedAt: z.string().describe('ISO 8601.'),
    finishedAt: z.string().nullable(),
    progress: z.object({
      sessions: count,
      totalSessions: count.nullable(),
      events: count,
      totalEvents: count.nullable(),
      eventsPerSecond: z.number().nonnegative(),
      etaSeconds: z.number().nonnegative().nullable(),
      mismatches: count,
      seconds: z.number().nonnegative(),
    }),
    result: z
      .object({ sessions: count, mismatches: z.array(sessionAuditAnswer), eventsReplayed: count, seconds: z.number().nonnegative() })
      .nullable()
      .describe('At the end: every mismatching session with its differences, path by path.'),
    error: z.string().nullable(),
  })
  .meta({
    id: 'AuditJob',
    example: {
      jobId: '0b5c2f4e-8d1a-4c3e-9f7b-2a6d8e1c4b90',
      status: 'completed',
      since: null,
      startedAt: '2026-01-31T10:00:00.000Z',
      finishedAt: '2026-01-31T10:00:02.500Z',
      progress: { sessions: 12, totalSessions: 12, events: 340, totalEvents: 340, eventsPerSecond: 136, etaSeconds: 0, mismatches: 0, seconds: 2.5 },
      result: { sessions: 12, mismatches: [], eventsReplayed: 340, seconds: 2.5 },
      error: null,
    },
  }) satisfies z.ZodType<AuditJobAnswer>;

/** `POST /v1/audit`: the job, and whether it was already running (then no new one started). */
export const auditJobStartedAnswer = auditJobAnswer
  .extend({ alreadyRunning: z.boolean() })
  .meta({ id: 'AuditJobStarted', description: 'The job started, or the one already running (`alreadyRunning: true`).' });

export const JOB_LOCATION: ResponseHeader = { description: "The job's URL, `/v1/audit/{jobId}`.", schema: z.string() };

/**
 * `POST /v1/audit` as the contract answers it (http-api.md): once the whole-store audit has run, its result —
 * every session audited, the mismatches with their differences, the events replayed, the seconds it took — and
 * the job it ran as (`GET /v1/audit/{jobId}` keeps it).
 */
export const storeAuditAnswer = z
  .object({ sessions: count, mismatches: z.array(sessionAuditAnswer), eventsReplayed: count, seconds: z.number().nonnegative(), jobId: z.uuid() })
  .meta({ id: 'StoreAudit', example: { sessions: 12, mismatches: [], eventsReplayed: 340, seconds: 2.5, jobId: '0b5c2f4e-8d1a-4c3e-9f7b-2a6d8e1c4b90' } });

/** RFC 7240: `Prefer: respond-async` asks for the job at once (202) instead of the result at its end. */
export const PREFER: RequestHeader = {
  name: 'Prefer',
  description: '`respond-async`: answer 202 with the job at once (`Location` names it; follow it with `GET /v1/audit/{jobId}` or its `/live`) instead of 200 with the result once the audit has run.',
  schema: z.string().meta({ example: 'respond-async' }),
};

/** Whether a `Prefer` header asks for `respond-async` (a comma-separated list of preferences, RFC 7240). */
export const prefersAsync = (prefer: string | undefined): boolean =>
  (prefer ?? '').split(',').some((preference) => preference.split(';')[0]!.trim().toLowerCase() === 'respond-async');
