import { Body, Controller, Delete, HttpCode, Post, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { RequireScope, ZodValidationPipe } from '#platform';
import type { LeasePhase } from '#recovery';
import { IdParam } from '../sessions/session-id.js';
import { CloseRunStream, OpenRunStream, PutRunLease, RecordHostStarted, ReleaseRunLease } from './liveness.commands.js';
import { hostStartedBody, leaseBody, streamBody, streamCloseBody } from './recovery.schemas.js';

/** Liveness routes (scope `ingest`): ephemeral registry facts, not events. */
@ApiTags('liveness')
@ApiBearerAuth()
@Controller('v1')
@RequireScope('ingest')
export class LivenessController {
  constructor(private readonly commands: CommandBus) {}

  @Post('hosts/:hostId/started')
  @HttpCode(200)
  hostStarted(@IdParam('hostId') hostId: string, @Body(new ZodValidationPipe(hostStartedBody)) body: z.infer<typeof hostStartedBody>) {
    return this.commands.execute(new RecordHostStarted(hostId, body.startedAt));
  }

  @Put('runs/:runId/lease')
  putLease(@IdParam('runId') runId: string, @Body(new ZodValidationPipe(leaseBody)) body: z.infer<typeof leaseBody>) {
    const { sessionId, hostId, ttlSeconds } = body;
    return this.commands.execute(new PutRunLease(runId, { sessionId, hostId, ttlSeconds, phase: body.phase as LeasePhase | undefined }));
  }

  @Delete('runs/:runId/lease')
  deleteLease(@IdParam('runId') runId: string) {
    return this.commands.execute(new ReleaseRunLease(runId));
  }

  @Put('runs/:runId/stream')
  openStream(@IdParam('runId') runId: string, @Body(new ZodValidationPipe(streamBody)) body: z.infer<typeof streamBody>) {
    return this.commands.execute(new OpenRunStream(runId, body.sessionId));
  }

  @Delete('runs/:runId/stream')
  closeStream(
    @IdParam('runId') runId: string,
    @Body(new ZodValidationPipe(streamCloseBody)) _body: z.infer<typeof streamCloseBody>,
  ) {
    return this.commands.execute(new CloseRunStream(runId));
  }
}
