import type { HealthCheckResult } from '@nestjs/terminus';
import { z } from 'zod';

const indicators = z.record(z.string(), z.looseObject({ status: z.enum(['up', 'down']) }));

/** `GET /health/live` and `GET /health/ready` (Terminus's health check result). */
export const healthAnswer = z
  .object({
    status: z.enum(['ok', 'error', 'shutting_down']),
    info: indicators.optional().describe('The indicators that are up.'),
    error: indicators.optional().describe('The indicators that are down.'),
    details: indicators,
    checks: indicators.optional().describe('Every check by name (the same as `details`); a 503 problem answer carries them too.'),
  })
  .meta({
    id: 'HealthCheck',
    example: {
      status: 'ok',
      info: { database: { status: 'up' }, migrations: { status: 'up', applied: 12 } },
      error: {},
      details: { database: { status: 'up' }, migrations: { status: 'up', applied: 12 } },
      checks: { database: { status: 'up' }, migrations: { status: 'up', applied: 12 } },
    },
  }) satisfies z.ZodType<HealthCheckResult>;
