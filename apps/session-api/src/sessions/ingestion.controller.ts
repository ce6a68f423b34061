import { Body, Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { SessionCommand } from '#domain';
import { ProblemError, RequireScope, ZodValidationPipe } from '#platform';
import { ExecuteSessionCommand } from './execute-session-command.command.js';
import {
  compressAnswer,
  compressBody,
  IDEMPOTENCY_KEY,
  IF_MATCH,
  journalBody,
  messagesBody,
  plainJournalBody,
  settleBody,
  stateRowsBody,
  submissionBody,
  truncateBody,
  withoutPrecondition,
  writeResultAnswer,
} from './ingestion.schemas.js';
import { CompressSession } from './compress-session.command.js';
import { INGEST_OPS } from './ingest-ops.js';
import { Precondition } from './precondition.decorator.js';
import { ApiRoute } from '../docs/api-route.decorator.js';
import { requestIdOf } from './request-id.js';
import { IdParam } from './session-id.js';
import type { CompressResult, WriteOptions, WriteResult } from '#session-commands';


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
    precondition: { expectedVersion?: number; idempotencyKey?: string; durability?: WriteOptions['durability'] } = {},
  ): Promise<WriteResult> {
    return this.commands.execute(
      new ExecuteSessionCommand(id, command, {
        expectedVersion: precondition.expectedVersion,
        durability: precondition.durability,
        idempotencyKey: idempotencyKeyOf(precondition.idempotencyKey),
        requestId: requestIdOf(request),
      }),
    );
  }

  @ApiRoute({
    summary: 'Record committed rows (MessagesRecorded)',
    description: 'Rows the UI owns and committed (the "sidecar" rows); importers use it too.',
    body: messagesBody,
    headers: [IF_MATCH, IDEMPOTENCY_KEY],
    ok: writeResultAnswer,
    problems: [409, 412],
  })
  @Post('messages')
  @HttpCode(200)
  messages(
    @IdParam('id') id: string,
    @Body(new ZodValidationPipe(messagesBody)) body: z.infer<typeof messagesBody>,
    @Precondition() expectedVersion: number | undefined,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() request: FastifyRequest,
  ) {
    return this.run(id, INGEST_OPS.messages.command(body), request, { expectedVersion, idempotencyKey });
  }

  @ApiRoute({
    summary: 'Submit a user turn (UserMessageSubmitted)',
    description: "The turn is the session's pending turn until it is settled or decided by recovery. `runId` makes it idempotent.",
    body: submissionBody,
    headers: [IF_MATCH],
    ok: writeResultAnswer,
    problems: [409, 412],
  })
  @Post('submissions')
  @HttpCode(200)
  submit(
    @IdParam('id') id: string,
    @Body(new ZodValidationPipe(submissionBody)) body: z.infer<typeof submissionBody>,
    @Precondition() expectedVersion: number | undefined,
    @Req() request: FastifyRequest,
  ) {
    return this.run(id, INGEST_OPS.submission.command(body), request, { expectedVersion });
  }

  @ApiRoute({
    summary: 'Settle a turn (TurnSettled)',
    description:
      "The worker finished: `rows` are the turn's display rows, the user row included. After the turn was decided (TurnInterrupted) a settle is accepted only where the finished worker may supersede its own marker; otherwise 409 `TURN_ALREADY_DECIDED`. Repeating an accepted settle is a duplicate.",
    body: settleBody,
    headers: [IF_MATCH],
    ok: writeResultAnswer,
    problems: [409, 412],
  })
  @Post('runs/:runId/settle')
  @HttpCode(200)
  settle(
    @IdParam('id') id: string,
    @IdParam('runId') runId: string,
    @Body(new ZodValidationPipe(settleBody)) body: z.infer<typeof settleBody>,
    @Precondition() expectedVersion: number | undefined,
    @Req() request: FastifyRequest,
  ) {
    return this.run(id, INGEST_OPS.settle.command(body, runId), request, { expectedVersion });
  }

  @ApiRoute({
    summary: 'Record run journal events (JournalEventRecorded per new (runId, seq))',
    description: 'Seqs may arrive late and out of order; a `(runId, seq)` seen before is a duplicate. `payload` is stored verbatim.',
    body: journalBody,
    headers: [IF_MATCH],
    ok: writeResultAnswer,
    problems: [409, 412],
  })
  @Post('runs/:runId/journal')
  @HttpCode(200)
  journal(
    @IdParam('id') id: string,
    @IdParam('runId') runId: string,
    @Body(new ZodValidationPipe(journalBody, 'body', plainJournalBody)) body: z.infer<typeof journalBody>,
    @Precondition() expectedVersion: number | undefined,
    @Req() request: FastifyRequest,
  ) {
    return this.run(id, INGEST_OPS.journal.command(body, runId), request, { expectedVersion, durability: INGEST_OPS.journal.durability(body) });
  }

  @ApiRoute({
    summary: "Observe rows of the agent's own store (StateRowsObserved)",
    description: 'A `rowId` seen again replaces the earlier observation of that row; the same content again is a duplicate.',
    body: stateRowsBody,
    headers: [IF_MATCH],
    ok: writeResultAnswer,
    problems: [409, 412],
  })
  @Post('state-rows')
  @HttpCode(200)
  stateRows(
    @IdParam('id') id: string,
    @Body(new ZodValidationPipe(stateRowsBody)) body: z.infer<typeof stateRowsBody>,
    @Precondition() expectedVersion: number | undefined,
    @Req() request: FastifyRequest,
  ) {
    return this.run(id, INGEST_OPS['state-rows'].command(body), request, { expectedVersion });
  }

  @ApiRoute({
    summary: 'Truncate the display transcript (TranscriptTruncated)',
    description: 'Keeps the first `keepCount` rows and sets the watermark to the last kept row (0 for none, always 0 for `clear`). 422 `KEEP_COUNT_OUT_OF_RANGE` past the transcript.',
    body: truncateBody,
    headers: [IF_MATCH, IDEMPOTENCY_KEY],
    ok: writeResultAnswer,
    problems: [409, 412, 422],
  })
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
  @ApiRoute({
    summary: 'Compress: archive the parent (SessionCompressed) and start the child (SessionStarted with parentSessionId)',
    description: "A retry completes both. 409 `SESSION_ALREADY_EXISTS` when the child exists and is not this parent's continuation.",
    body: compressBody,
    headers: [IF_MATCH],
    ok: compressAnswer,
    problems: [409, 412],
  })
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
