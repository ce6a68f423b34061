import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ProblemError } from '#platform';
import type { AuditJob } from './audit-job.js';
import { AuditJobs } from './audit-jobs.js';
import { GetAuditJob } from './get-audit-job.query.js';

@QueryHandler(GetAuditJob)
export class GetAuditJobHandler implements IQueryHandler<GetAuditJob> {
  constructor(private readonly jobs: AuditJobs) {}

  async execute({ jobId }: GetAuditJob): Promise<AuditJob> {
    const job = this.jobs.get(jobId);
    if (!job) throw new ProblemError(404, 'AUDIT_JOB_NOT_FOUND', `No audit job ${jobId} is known to this service.`);
    return job;
  }
}
