import { createHash } from 'node:crypto';
import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { type AuthenticatedRequest, RequireScope, ZodValidationPipe } from '#platform';
import type { EraseResult } from '#session-commands';
import { ApiRoute } from '../docs/api-route.decorator.js';
import { EraseSession } from './erase-session.command.js';
import { writeResultAnswer } from './ingestion.schemas.js';
import { IdParam } from './session-id.js';

export const erasureBody = z
  .object({ reason: z.string().trim().min(1).max(1000).describe('Why (a ticket, "user request"): kept in the SessionErased event.') })
  .strict()
  .meta({ id: 'ErasureRequest', example: { reason: 'user request #4411' } });

export const erasureAnswer = writeResultAnswer
  .extend({
    dataKeyId: z.string().nullable().describe("The destroyed data key's id; null when the session's content was never sealed."),
    snapshotsPurged: z.number().int().nonnegative(),
    contentDropped: z
      .number()
      .int()
      .nonnegative()
      .describe('Events written before content was sealed (stored plain) whose content the erasure dropped from the table.'),
  })
  .meta({
    id: 'ErasureResult',
    example: { sessionId: 'demo', version: 10, appended: 1, duplicate: false, dataKeyId: '6f1c…', snapshotsPurged: 2, contentDropped: 0 },
  });

/** Who asked, without the key: the first 12 hex digits of its sha256. */
const fingerprintOf = (request: AuthenticatedRequest): string =>
  request.apiKey ? `key:${createHash('sha256').update(request.apiKey.key).digest('hex').slice(0, 12)}` : 'unknown';

/** Erasure (scope `admin`): the session's content destroyed, its proof kept (README "Personal data"). */
@ApiTags('privacy')
@ApiBearerAuth()
@Controller('v1/sessions/:id')
@RequireScope('admin')
export class ErasureController {
  constructor(private readonly commands: CommandBus) {}

  @ApiRoute({
    summary: "Erase a session's content (SessionErased; its data key destroyed)",
    description:
      'Appends SessionErased (when, why, by which key), destroys the data key its content is sealed with, and drops its snapshots. ' +
      'Afterwards every read of the session answers 410 `SESSION_ERASED` and every write is refused the same way; the audit still ' +
      'verifies its chain and says "erased". A repeat answers `duplicate: true`.',
    body: erasureBody,
    ok: erasureAnswer,
  })
  @Post('erasure')
  @HttpCode(200)
  erase(
    @IdParam('id') id: string,
    @Body(new ZodValidationPipe(erasureBody)) body: z.infer<typeof erasureBody>,
    @Req() request: AuthenticatedRequest,
  ): Promise<EraseResult> {
    return this.commands.execute(new EraseSession(id, body.reason, fingerprintOf(request)));
  }
}
