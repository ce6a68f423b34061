import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module.js';
import { AuditController } from './audit.controller.js';

/** `POST /v1/sessions/{id}/audit`, `POST /v1/audit`, `POST /v1/projections/{name}/rebuild`. */
@Module({
  imports: [SessionsModule],
  controllers: [AuditController],
})
export class AuditModule {}
