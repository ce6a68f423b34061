import { Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import pg from 'pg';
import type { EventStore } from '#event-store';
import { RequireScope } from '#platform';
import { type AuditDeps, auditSession, rebuildProjection, SessionViews } from '#read-models';
import { EVENT_STORE, PG_POOL } from '../database/database.module.js';
import { checkId } from '../sessions/session-id.js';
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
  private readonly deps: AuditDeps;

  constructor(
    @Inject(PG_POOL) pool: pg.Pool,
    @Inject(EVENT_STORE) store: EventStore,
    views: SessionViews,
  ) {
    this.deps = { pool, store, views };
  }

  @ApiRoute({
    summary: "Audit one session: verify its hash chain, rebuild every read model from its events and compare",
    description: 'Compared: stored snapshots, the summary row, the session index row and the view served.',
    ok: sessionAuditAnswer,
  })
  @Post('sessions/:id/audit')
  @HttpCode(200)
  auditSession(@Param('id') id: string) {
    return auditSession(this.deps, checkId(id, 'id'));
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
  rebuild(@Param('name') name: string) {
    return rebuildProjection(this.deps, name);
  }
}
