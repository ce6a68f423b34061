import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '#platform';
import type { RebuildResult, SessionAudit } from '#read-models';
import { IdParam } from '../sessions/session-id.js';
import { AuditSession } from './audit-session.query.js';
import { RebuildProjection } from './rebuild-projection.command.js';

/**
 * Replay audits of one session and projection rebuilds (scope `admin`): every stored view checked against a pure replay of
 * its events, and a read model rebuilt blue/green from the log while reads go on.
 */
@ApiTags('audit')
@ApiBearerAuth()
@Controller('v1')
@RequireScope('admin')
export class AuditController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post('sessions/:id/audit')
  @HttpCode(200)
  auditSession(@IdParam('id') id: string): Promise<SessionAudit> {
    return this.queries.execute(new AuditSession(id));
  }

  @Post('projections/:name/rebuild')
  @HttpCode(200)
  rebuild(@Param('name') name: string): Promise<RebuildResult> {
    return this.commands.execute(new RebuildProjection(name));
  }
}
