import { Body, Controller, Delete, HttpCode, Post, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { RequireScope, ZodValidationPipe } from '#platform';
import type { LeasePhase } from '#recovery';
import { IdParam } from '../sessions/session-id.js';
import { CloseRunStream, OpenRunStream, PutRunLease, RecordHostStarted, ReleaseRunLease } from './liveness.commands.js';
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
  constructor(private readonly commands: CommandBus) {}

  @ApiRoute({
    summary: 'An agent host booted: the runs it held before are gone',
    description: "Releases the host's registered leases; a repeat, or a late retry of an older boot, changes nothing.",
    body: hostStartedBody,
    ok: hostStartedAnswer,
  })
  @Post('hosts/:hostId/started')
  @HttpCode(200)
  hostStarted(@IdParam('hostId') hostId: string, @Body(new ZodValidationPipe(hostStartedBody)) body: z.infer<typeof hostStartedBody>) {
    return this.commands.execute(new RecordHostStarted(hostId, body.startedAt));
  }

  @ApiRoute({
    summary: 'Register or renew a run lease',
    description: 'The worker registry lists the run until the lease expires; a lease `cancelling` for over 60 s (from the first write with that phase) no longer counts as alive.',
    body: leaseBody,
    ok: leaseAnswer,
  })
  @Put('runs/:runId/lease')
  putLease(@IdParam('runId') runId: string, @Body(new ZodValidationPipe(leaseBody)) body: z.infer<typeof leaseBody>) {
    const { sessionId, hostId, ttlSeconds } = body;
    return this.commands.execute(new PutRunLease(runId, { sessionId, hostId, ttlSeconds, phase: body.phase as LeasePhase | undefined }));
  }

  @ApiRoute({ summary: 'The worker unregistered the run', ok: leaseReleasedAnswer })
  @Delete('runs/:runId/lease')
  deleteLease(@IdParam('runId') runId: string) {
    return this.commands.execute(new ReleaseRunLease(runId));
  }

  @ApiRoute({ summary: 'The live response stream to the client opened', body: streamBody, ok: streamOpenedAnswer })
  @Put('runs/:runId/stream')
  openStream(@IdParam('runId') runId: string, @Body(new ZodValidationPipe(streamBody)) body: z.infer<typeof streamBody>) {
    return this.commands.execute(new OpenRunStream(runId, body.sessionId));
  }

  @ApiRoute({ summary: 'The live response stream to the client closed', body: streamCloseBody, ok: streamClosedAnswer })
  @Delete('runs/:runId/stream')
  closeStream(
    @IdParam('runId') runId: string,
    @Body(new ZodValidationPipe(streamCloseBody)) _body: z.infer<typeof streamCloseBody>,
  ) {
    return this.commands.execute(new CloseRunStream(runId));
  }
}
