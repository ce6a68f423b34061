import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AuditJobs, type StartedJob } from './audit-jobs.js';
import { StartStoreAudit } from './start-store-audit.command.js';

@CommandHandler(StartStoreAudit)
export class StartStoreAuditHandler implements ICommandHandler<StartStoreAudit> {
  constructor(private readonly jobs: AuditJobs) {}

  execute({ since }: StartStoreAudit): Promise<StartedJob> {
    return this.jobs.start(since);
  }
}
