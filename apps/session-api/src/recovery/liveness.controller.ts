import { Body, Controller, Delete, HttpCode, Inject, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { RequireScope, ZodValidationPipe } from '#platform';
import { type LeasePhase, LivenessRegistry } from '#recovery';
import { IdParam } from '../sessions/session-id.js';
import { CLOCK, type Clock } from './recovery.constants.js';
import {
  hostStartedAnswer,
  hostStartedBody,
  leaseAnswer,
  leaseBody,
  leaseReleasedAnswer,
  streamBody,
  streamCloseBody,
  streamClosedAnswer,
  streamOpenedAnswer,
} from './recovery.schemas.js';
import { ApiRoute } from '../docs/api-route.decorator.js';

/** Liveness routes (scope `ingest`): ephemeral registry facts, not events. */
@ApiTags('liveness')
@ApiBearerAuth()
@Controller('v1')
@RequireScope('ingest')
export class LivenessController {
  constructor(
    private readonly registry: LivenessRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @ApiRoute({
    summary: 'An agent host booted: the runs it held before are gone',
    description: "Releases the host's registered leases; a repeat, or a late retry of an older boot, changes nothing.",
    body: hostStartedBody,
    ok: hostStartedAnswer,
  })
  @Post('hosts/:hostId/started')
  @HttpCode(200)
  hostStarted(@IdParam('hostId') hostId: string, @Body(new ZodValidationPipe(hostStartedBody)) body: z.infer<typeof hostStartedBody>) {
    return this.registry.hostStarted(hostId, body.startedAt);
  }

  @ApiRoute({
    summary: 'Register or renew a run lease',
    description: 'The worker registry lists the run until the lease expires; a lease `cancelling` for over 60 s (from the first write with that phase) no longer counts as alive.',
    body: leaseBody,
    ok: leaseAnswer,
  })
  @Put('runs/:runId/lease')
  putLease(@IdParam('runId') runId: string, @Body(new ZodValidationPipe(leaseBody)) body: z.infer<typeof leaseBody>) {
    return this.registry.putLease({
      runId: runId,
      sessionId: body.sessionId,
      hostId: body.hostId,
      ttlSeconds: body.ttlSeconds,
      phase: body.phase as LeasePhase | undefined,
      at: this.clock(),
    });
  }

  @ApiRoute({ summary: 'The worker unregistered the run', ok: leaseReleasedAnswer })
  @Delete('runs/:runId/lease')
  async deleteLease(@IdParam('runId') runId: string) {
    const released = await this.registry.deleteLease(runId, this.clock());
    return { runId, released };
  }

  @ApiRoute({ summary: 'The live response stream to the client opened', body: streamBody, ok: streamOpenedAnswer })
  @Put('runs/:runId/stream')
  openStream(@IdParam('runId') runId: string, @Body(new ZodValidationPipe(streamBody)) body: z.infer<typeof streamBody>) {
    return this.registry.openStream(runId, body.sessionId, this.clock());
  }

  @ApiRoute({ summary: 'The live response stream to the client closed', body: streamCloseBody, ok: streamClosedAnswer })
  @Delete('runs/:runId/stream')
  async closeStream(
    @IdParam('runId') runId: string,
    @Body(new ZodValidationPipe(streamCloseBody)) _body: z.infer<typeof streamCloseBody>,
  ) {
    const closed = await this.registry.closeStream(runId);
    return { runId, closed };
  }
}
