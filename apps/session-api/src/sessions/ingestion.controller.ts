import { Body, Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { SessionCommand } from '#domain';
import { ProblemError, RequireScope, ZodValidationPipe } from '#platform';
import { ExecuteSessionCommand } from './execute-session-command.command.js';
import {
  compressBody,
  journalBody,
  messagesBody,
  settleBody,
  stateRowsBody,
  submissionBody,
  truncateBody,
  withoutPrecondition,
} from './ingestion.schemas.js';
import { CompressSession } from './compress-session.command.js';
import { Precondition } from './precondition.decorator.js';
import { requestIdOf } from './request-id.js';
import { IdParam } from './session-id.js';
import type { CompressResult, WriteResult } from '#session-commands';


function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,200}$/.test(header)) {
    throw new ProblemError(400, 'VALIDATION_FAILED', 'Idempotency-Key must be 1–200 visible ASCII characters.', [
      { path: 'header.Idempotency-Key', message: 'invalid' },
    ]);
  }
  return header;
}

/** Ingestion routes (scope `ingest`): each becomes one domain command, decided and appended atomically. */
@ApiTags('ingestion')
@ApiBearerAuth()
@Controller('v1/sessions/:id')
@RequireScope('ingest')
export class IngestionController {
  constructor(private readonly commands: CommandBus) {}

  private run(
    id: string,
    command: SessionCommand,
    request: FastifyRequest,
    precondition: { expectedVersion?: number; idempotencyKey?: string } = {},
  ): Promise<WriteResult> {
    return this.commands.execute(
      new ExecuteSessionCommand(id, command, {
        expectedVersion: precondition.expectedVersion,
        idempotencyKey: idempotencyKeyOf(precondition.idempotencyKey),
        requestId: requestIdOf(request),
      }),
    );
  }

  @Post('messages')
  @HttpCode(200)
  messages(
    @IdParam('id') id: string,
    @Body(new ZodValidationPipe(messagesBody)) body: z.infer<typeof messagesBody>,
    @Precondition() expectedVersion: number | undefined,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() request: FastifyRequest,
  ) {
    const data = withoutPrecondition(body);
    return this.run(id, { type: 'RecordMessages', data }, request, { expectedVersion, idempotencyKey });
  }

  @Post('submissions')
  @HttpCode(200)
  submit(
    @IdParam('id') id: string,
    @Body(new ZodValidationPipe(submissionBody)) body: z.infer<typeof submissionBody>,
    @Precondition() expectedVersion: number | undefined,
    @Req() request: FastifyRequest,
  ) {
    return this.run(id, { type: 'SubmitMessage', data: withoutPrecondition(body) }, request, { expectedVersion });
  }

  @Post('runs/:runId/settle')
  @HttpCode(200)
  settle(
    @IdParam('id') id: string,
    @IdParam('runId') runId: string,
    @Body(new ZodValidationPipe(settleBody)) body: z.infer<typeof settleBody>,
    @Precondition() expectedVersion: number | undefined,
    @Req() request: FastifyRequest,
  ) {
    const data = { runId: runId, ...withoutPrecondition(body) };
    return this.run(id, { type: 'SettleTurn', data }, request, { expectedVersion });
  }

  @Post('runs/:runId/journal')
  @HttpCode(200)
  journal(
    @IdParam('id') id: string,
    @IdParam('runId') runId: string,
    @Body(new ZodValidationPipe(journalBody)) body: z.infer<typeof journalBody>,
    @Precondition() expectedVersion: number | undefined,
    @Req() request: FastifyRequest,
  ) {
    const data = { runId: runId, ...withoutPrecondition(body) };
    return this.run(id, { type: 'RecordJournalEvents', data }, request, { expectedVersion });
  }

  @Post('state-rows')
  @HttpCode(200)
  stateRows(
    @IdParam('id') id: string,
    @Body(new ZodValidationPipe(stateRowsBody)) body: z.infer<typeof stateRowsBody>,
    @Precondition() expectedVersion: number | undefined,
    @Req() request: FastifyRequest,
  ) {
    return this.run(id, { type: 'ObserveStateRows', data: withoutPrecondition(body) }, request, { expectedVersion });
  }

  @Post('truncate')
  @HttpCode(200)
  truncate(
    @IdParam('id') id: string,
    @Body(new ZodValidationPipe(truncateBody)) body: z.infer<typeof truncateBody>,
    @Precondition() expectedVersion: number | undefined,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() request: FastifyRequest,
  ) {
    return this.run(id, { type: 'TruncateTranscript', data: withoutPrecondition(body) }, request, { expectedVersion, idempotencyKey });
  }

  /** Archives the parent (SessionCompressed), then starts the child with the parent link; a retry completes both. */
  @Post('compress')
  @HttpCode(200)
  compress(
    @IdParam('id') id: string,
    @Body(new ZodValidationPipe(compressBody)) body: z.infer<typeof compressBody>,
    @Precondition() expectedVersion: number | undefined,
    @Req() request: FastifyRequest,
  ): Promise<CompressResult> {
    return this.commands.execute(new CompressSession(id, withoutPrecondition(body), { expectedVersion, requestId: requestIdOf(request) }));
  }
}
