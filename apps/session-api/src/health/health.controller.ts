import { Controller, Get, Inject, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, type HealthCheckResult, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import pg from 'pg';
import { DatabaseReachability, knownMigrationNames, problem, Public } from '#platform';
import { PG_POOL } from '../database/database.module.js';
import { ApiRoute } from '../docs/api-route.decorator.js';
import { healthAnswer } from './health.schemas.js';

/** A probe that gets no answer in this time fails (a database that black-holes packets must not hang it). */
const CHECK_TIMEOUT_MS = 3000;

function answered<T>(query: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([query, timeout]).finally(() => clearTimeout(timer));
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

@ApiTags('operations')
@Controller('health')
@Public()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(PG_POOL) private readonly pool: pg.Pool,
    private readonly reachability: DatabaseReachability,
  ) {}

  /** The process is up. */
  @ApiRoute({ summary: 'Liveness: the process is up', ok: healthAnswer })
  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /**
   * The database answers and every migration this build knows is applied. 200: terminus's answer plus
   * `checks`, every check by name; 503: a problem (`NOT_READY`) whose `detail` names the failing checks and
   * whose `checks` hold each one's status and, when down, its `error`.
   */
  @ApiRoute({
    summary: 'Readiness: the database answers and every migration this build knows is applied',
    ok: healthAnswer,
    problems: [503],
  })
  @Get('ready')
  @HealthCheck()
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    try {
      const result = await this.health.check([() => this.database(), () => this.migrations()]);
      return { ...result, checks: result.details };
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const { error: failing = {}, details } = error.getResponse() as HealthCheckResult;
      const named = Object.entries(failing).map(([name, check]) => (typeof check?.error === 'string' ? `${name} (${check?.error})` : name));
      reply.status(503).type('application/problem+json');
      return { ...problem(503, 'NOT_READY', `Not ready: ${named.join(', ')} down.`), checks: details };
    }
  }

  private async database() {
    const indicator = this.indicators.check('database');
    try {
      const askedAt = this.reachability.now();
      await answered(this.pool.query('SELECT 1'));
      this.reachability.reached(askedAt);
      return indicator.up();
    } catch (error) {
      this.reachability.unreachable('readiness probe', error);
      return indicator.down({ error: messageOf(error) });
    }
  }

  private async migrations() {
    const indicator = this.indicators.check('migrations');
    try {
      const result = await answered(this.pool.query<{ name: string }>('SELECT name FROM typeorm_migrations'));
      const applied = new Set(result.rows.map((row) => row.name));
      const pending = knownMigrationNames.filter((name) => !applied.has(name));
      return pending.length === 0
        ? indicator.up({ applied: applied.size })
        : indicator.down({ error: `${pending.length} pending: ${pending.join(', ')}`, pending });
    } catch (error) {
      return indicator.down({ error: messageOf(error) });
    }
  }
}
