import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import { RequireScope, ZodValidationPipe } from '#platform';
import { RecoverySupervisor } from '#recovery';
import { sweepBody } from './recovery.schemas.js';

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
  constructor(private readonly supervisor: RecoverySupervisor) {}

  @Post('sweep')
  @HttpCode(200)
  async sweep(@Body(new ZodValidationPipe(sweepBody)) body: z.infer<typeof sweepBody>): Promise<SweepAnswer> {
    const { examined, interrupted, recoveredFromAgentStore, gaveUp } = await this.supervisor.sweep(body?.now);
    return { examined, interrupted, recoveredFromAgentStore, gaveUp };
  }
}
