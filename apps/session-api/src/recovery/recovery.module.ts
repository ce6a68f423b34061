import { Inject, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type pg from 'pg';
import type { EventStore } from '#event-store';
import { type ChronicleConfig, DatabaseReachability, Metrics } from '#platform';
import { SessionViews } from '#read-models';
import { LivenessRegistry, RecoverySupervisor } from '#recovery';
import { SessionWriter } from '#session-commands';
import { CONFIG } from '../app.constants.js';
import { EVENT_STORE, PG_POOL } from '../database/database.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { LivenessController } from './liveness.controller.js';
import { LIVENESS_HANDLERS } from './liveness.handlers.js';
import { CLOCK, type Clock } from './recovery.constants.js';
import { RecoveryController } from './recovery.controller.js';
import { SweepRecoveryHandler } from './sweep-recovery.handler.js';

const logger = new Logger('Recovery');

/** The liveness routes, the sweep route and the supervisor's interval (`CHRONICLE_RECOVERY_INTERVAL_MS`, 0 = off). */
@Module({
  imports: [SessionsModule],
  controllers: [LivenessController, RecoveryController],
  providers: [
    ...LIVENESS_HANDLERS,
    SweepRecoveryHandler,
    { provide: CLOCK, useValue: (() => Date.now() / 1000) satisfies Clock },
    { provide: LivenessRegistry, useFactory: (pool: pg.Pool) => new LivenessRegistry(pool), inject: [PG_POOL] },
    {
      provide: RecoverySupervisor,
      useFactory: (
        pool: pg.Pool,
        store: EventStore,
        registry: LivenessRegistry,
        views: SessionViews,
        writer: SessionWriter,
        metrics: Metrics,
        clock: Clock,
        reachability: DatabaseReachability,
      ) =>
        new RecoverySupervisor(pool, store, registry, views, writer, {
          clock,
          onDecision: (decision, sessionId) => {
            const cause = decision.type === 'TurnInterrupted' ? decision.data.cause : 'none';
            logger.log({ msg: 'recovery decision', sessionId, runId: decision.data.runId, cause, decision: decision.type });
            metrics.recoveryDecisions.inc({ decision: decision.type, cause });
          },
          onRefused: (decision, error, sessionId) => {
            logger.warn({
              msg: 'recovery decision refused',
              sessionId,
              runId: decision.data.runId ?? null,
              decision: decision.type,
              code: error.code,
              reason: error.message,
            });
            metrics.recoveryRefusals.inc({ decision: decision.type, code: error.code });
          },
          onError: (error, sessionId) =>
            reachability.absorbs('recovery supervisor', error) ||
            logger.warn(`recovery sweep${sessionId ? ` of ${sessionId}` : ''} failed: ${(error as Error).message}`),
        }),
      inject: [PG_POOL, EVENT_STORE, LivenessRegistry, SessionViews, SessionWriter, Metrics, CLOCK, DatabaseReachability],
    },
  ],
})
export class RecoveryModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly supervisor: RecoverySupervisor,
    @Inject(CONFIG) private readonly config: ChronicleConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.supervisor.start(this.config.recoveryIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.supervisor.stop();
  }
}
