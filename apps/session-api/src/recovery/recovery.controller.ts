import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { RequireScope, ZodValidationPipe } from '#platform';
import { sweepAnswer, sweepBody } from './recovery.schemas.js';
import { SweepRecovery } from './sweep-recovery.command.js';
import { ApiRoute } from '../docs/api-route.decorator.js';

export interface SweepAnswer {
  readonly examined: number;
  readonly interrupted: number;
  readonly recoveredFromAgentStore: number;
  readonly gaveUp: number;
}

/** `POST /v1/recovery/sweep` (scope `admin`): one supervisor sweep, optionally "as of" a later `now`. */
@ApiTags('recovery')
@ApiBearerAuth()
@Controller('v1/recovery')
@RequireScope('admin')
export class RecoveryController {
  constructor(private readonly commands: CommandBus) {}

  @ApiRoute({
    summary: 'Run the recovery supervisor once',
    description:
      'Over every session with a pending turn or a pending marker. `now` (epoch seconds) may only be later than the real clock (earlier: 400, nothing decided): "decide as of then"; every time comparison of the sweep uses it, and each decision records it in its evidence.',
    body: sweepBody,
    ok: sweepAnswer,
  })
  @Post('sweep')
  @HttpCode(200)
  async sweep(@Body(new ZodValidationPipe(sweepBody)) body: z.infer<typeof sweepBody>): Promise<SweepAnswer> {
    const { examined, interrupted, recoveredFromAgentStore, gaveUp } = await this.commands.execute(new SweepRecovery(body?.now));
    return { examined, interrupted, recoveredFromAgentStore, gaveUp };
  }
}
