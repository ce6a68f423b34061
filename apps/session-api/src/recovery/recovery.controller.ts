import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { RequireScope, ZodValidationPipe } from '#platform';
import { sweepBody } from './recovery.schemas.js';
import { SweepRecovery } from './sweep-recovery.command.js';

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

  @Post('sweep')
  @HttpCode(200)
  async sweep(@Body(new ZodValidationPipe(sweepBody)) body: z.infer<typeof sweepBody>): Promise<SweepAnswer> {
    const { examined, interrupted, recoveredFromAgentStore, gaveUp } = await this.commands.execute(new SweepRecovery(body?.now));
    return { examined, interrupted, recoveredFromAgentStore, gaveUp };
  }
}
