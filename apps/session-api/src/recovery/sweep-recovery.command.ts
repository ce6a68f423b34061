import { Command } from '@nestjs/cqrs';
import type { SweepResult } from '#recovery';

/** `POST /v1/recovery/sweep`: one supervisor sweep, optionally "as of" a `now` later than the real clock. */
export class SweepRecovery extends Command<SweepResult> {
  constructor(readonly now: number | undefined) {
    super();
  }
}
