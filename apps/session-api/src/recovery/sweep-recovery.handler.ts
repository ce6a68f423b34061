import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { RecoverySupervisor, type SweepResult } from '#recovery';
import { SweepRecovery } from './sweep-recovery.command.js';

@CommandHandler(SweepRecovery)
export class SweepRecoveryHandler implements ICommandHandler<SweepRecovery> {
  constructor(private readonly supervisor: RecoverySupervisor) {}

  execute({ now }: SweepRecovery): Promise<SweepResult> {
    return this.supervisor.sweep(now);
  }
}
