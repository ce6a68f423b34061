import { z } from 'zod';
import { epochSecondsSchema as epochSeconds, idSchema as id } from '#domain';
import { LEASE_PHASES } from '#recovery';


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
