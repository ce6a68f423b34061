import { Query } from '@nestjs/cqrs';
import type { AuditJob } from './audit-job.js';

/** A whole-store audit job of this process, running or finished (404 `AUDIT_JOB_NOT_FOUND` otherwise). */
export class GetAuditJob extends Query<AuditJob> {
  constructor(readonly jobId: string) {
    super();
  }
}
