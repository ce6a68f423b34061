import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '#platform';
import type { RebuildResult, SessionAudit } from '#read-models';
import { IdParam } from '../sessions/session-id.js';
import { AuditSession } from './audit-session.query.js';
import { RebuildProjection } from './rebuild-projection.command.js';
import { ApiRoute } from '../docs/api-route.decorator.js';
import { projectionNameParam, rebuildAnswer, sessionAuditAnswer } from './audit.schemas.js';

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

  @ApiRoute({
    summary: "Audit one session: verify its hash chain, rebuild every read model from its events and compare",
    description: 'Compared: stored snapshots, the summary row, the session index row and the view served.',
    ok: sessionAuditAnswer,
  })
  @Post('sessions/:id/audit')
  @HttpCode(200)
  auditSession(@IdParam('id') id: string): Promise<SessionAudit> {
    return this.queries.execute(new AuditSession(id));
  }

  @ApiRoute({
    summary: 'Rebuild a read model from the log, blue/green, without stopping reads',
    description: '404 `PROJECTION_NOT_FOUND` for another name; 409 `REBUILD_IN_PROGRESS` while the same rebuild runs.',
    params: { name: projectionNameParam },
    ok: rebuildAnswer,
    problems: [404, 409],
  })
  @Post('projections/:name/rebuild')
  @HttpCode(200)
  rebuild(@Param('name') name: string): Promise<RebuildResult> {
    return this.commands.execute(new RebuildProjection(name));
  }
}
