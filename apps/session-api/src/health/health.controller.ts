import { Controller, Get, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import pg from 'pg';
import { knownMigrationNames, Public } from '#platform';
import { PG_POOL } from '../database/database.module.js';
import { ApiRoute } from '../docs/api-route.decorator.js';
import { healthAnswer } from './health.schemas.js';

@ApiTags('operations')
@Controller('health')
@Public()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(PG_POOL) private readonly pool: pg.Pool,
  ) {}

  /** The process is up. */
  @ApiRoute({ summary: 'Liveness: the process is up', ok: healthAnswer })
  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** The database answers and every migration this build knows is applied. */
  @ApiRoute({
    summary: 'Readiness: the database answers and every migration this build knows is applied',
    ok: healthAnswer,
    problems: [503],
  })
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      async () => {
        const indicator = this.indicators.check('database');
        try {
          await this.pool.query('SELECT 1');
          return indicator.up();
        } catch (error) {
          return indicator.down({ message: (error as Error).message });
        }
      },
      async () => {
        const indicator = this.indicators.check('migrations');
        try {
          const result = await this.pool.query<{ name: string }>('SELECT name FROM typeorm_migrations');
          const applied = new Set(result.rows.map((row) => row.name));
          const pending = knownMigrationNames.filter((name) => !applied.has(name));
          return pending.length === 0 ? indicator.up({ applied: applied.size }) : indicator.down({ pending });
        } catch (error) {
          return indicator.down({ message: (error as Error).message });
        }
      },
    ]);
  }
}
