import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module.js';
import { AuditJobs } from './audit-jobs.js';
import { AuditJobsController } from './audit-jobs.controller.js';
import { AuditController } from './audit.controller.js';
import { AuditSessionHandler } from './audit-session.handler.js';
import { ContinuousAuditService } from './continuous-audit.service.js';
import { GetAuditJobHandler } from './get-audit-job.handler.js';
import { RebuildProjectionHandler } from './rebuild-projection.handler.js';
import { StartStoreAuditHandler } from './start-store-audit.handler.js';

/** `POST /v1/sessions/{id}/audit`, audit jobs (`POST /v1/audit`, `GET /v1/audit/{jobId}[/live]`), `POST /v1/projections/{name}/rebuild`. */
@Module({
  imports: [SessionsModule],
  controllers: [AuditController, AuditJobsController],
  providers: [
    AuditJobs,
    StartStoreAuditHandler,
    GetAuditJobHandler,
    AuditSessionHandler,
    RebuildProjectionHandler,
    ContinuousAuditService,
  ],
})
export class AuditModule {}
