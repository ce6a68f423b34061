import { z } from 'zod';
import { epochSecondsSchema as epochSeconds, idSchema as id } from '#domain';
import { LEASE_PHASES, type LeaseRecord } from '#recovery';
import type { SweepAnswer } from './recovery.controller.js';

/** `POST /v1/hosts/{hostId}/started`: an agent host booted; the runs it held before are gone. */
export const hostStartedBody = z.strictObject({ startedAt: epochSeconds });

/** `PUT /v1/runs/{runId}/lease`: the worker registry lists the run until the lease expires. */
export const leaseBody = z.strictObject({
  sessionId: id,
  hostId: id,
  ttlSeconds: z.number().finite().positive().max(86_400),
  phase: z.enum(LEASE_PHASES as readonly [string, ...string[]]).optional(),
});

/** `PUT|DELETE /v1/runs/{runId}/stream`: the live response stream opened / closed. */
export const streamBody = z.strictObject({ sessionId: id });
export const streamCloseBody = z.strictObject({ sessionId: id.optional() }).optional();

/** `POST /v1/recovery/sweep`: `now` may only be later than the real clock. */
export const sweepBody = z.strictObject({ now: epochSeconds.optional() }).optional();

/** The answers of the liveness routes and of the sweep. */
const count = z.number().int().nonnegative();

export const sweepAnswer = z
  .object({
    examined: count.describe('Sessions with a pending turn or a pending marker looked at.'),
    interrupted: count.describe('Turns decided TurnInterrupted.'),
    recoveredFromAgentStore: count.describe('Turns decided TurnRecoveredFromAgentStore.'),
    gaveUp: count.describe('Markers given up on (JournalRecoveryAbandoned).'),
  })
  .meta({ id: 'SweepResult', example: { examined: 1, interrupted: 1, recoveredFromAgentStore: 0, gaveUp: 0 } }) satisfies z.ZodType<SweepAnswer>;

export const hostStartedAnswer = z
  .object({
    hostId: z.string(),
    startedAt: z.number().describe("The host's latest boot (a late retry of an older boot changes nothing)."),
    releasedLeases: count.describe('Leases of the runs the host held before, released by this boot.'),
  })
  .meta({ id: 'HostStarted', example: { hostId: 'worker-a', startedAt: 1767225600, releasedLeases: 2 } });

export const leaseAnswer = z
  .object({
    runId: z.string(),
    sessionId: z.string(),
    hostId: z.string(),
    phase: z.enum(LEASE_PHASES as readonly [string, ...string[]]),
    expiresAt: z.number(),
    phaseSince: z.number().describe('The first write with the current phase (the 60 s `cancelling` allowance counts from it).'),
    releasedAt: z.number().nullable(),
  })
  .meta({
    id: 'Lease',
    example: { runId: 'run-1', sessionId: 'demo', hostId: 'worker-a', phase: 'running', expiresAt: 1767225630, phaseSince: 1767225600, releasedAt: null },
  }) satisfies z.ZodType<Omit<LeaseRecord, 'phase'> & { phase: string }>;

export const leaseReleasedAnswer = z
  .object({ runId: z.string(), released: z.boolean().describe('False when the run held no registered lease.') })
  .meta({ id: 'LeaseReleased' });

export const streamOpenedAnswer = z
  .object({ runId: z.string(), sessionId: z.string(), openedAt: z.number() })
  .meta({ id: 'LiveStreamOpened' });

export const streamClosedAnswer = z
  .object({ runId: z.string(), closed: z.boolean().describe('False when no stream of the run was open.') })
  .meta({ id: 'LiveStreamClosed' });
