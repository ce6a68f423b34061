import { type BeforeApplicationShutdown, type DynamicModule, Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { TerminusModule } from '@nestjs/terminus';
import type pino from 'pino';
import {
  API_KEYS,
  ApiKeyGuard,
  type ApiKey,
  type ChronicleConfig,
  DatabaseReachability,
  Metrics,
  ProblemDetailsFilter,
  RateLimiter,
  RouteTable,
  WritesInFlight,
} from '#platform';
import { CONFIG } from './app.constants.js';
import { KeyScopesController } from './admin/key-scopes.controller.js';
import { AuditModule } from './audit/audit.module.js';
import { DatabaseModule } from './database/database.module.js';
import { HealthController } from './health/health.controller.js';
import { ImportModule } from './import/import.module.js';
import { MetricsController } from './metrics/metrics.controller.js';
import { RecoveryModule } from './recovery/recovery.module.js';
import { SessionsModule } from './sessions/sessions.module.js';

export { CONFIG } from './app.constants.js';

export interface AppRuntime {
  readonly config: ChronicleConfig;
  readonly databaseUrl: string;
  readonly keys: readonly ApiKey[];
  /** The root logger (main shares its own); one is made from the config when absent. */
  readonly log?: pino.Logger;
  /** The Fastify route table `createApp` collects (405 answers name the methods a path has). */
  readonly routes?: RouteTable;
  /** The rate limiter the authentication hook takes from (one per app, shared with the guard). */
  readonly limiter?: RateLimiter;
  /** The HTTP writes under way, counted by `createApp`'s hook: shutdown waits for them (`WriteDrain`). */
  readonly writes?: WritesInFlight;
}

/** On shutdown, before the sockets are closed and the pool ended: the HTTP writes under way are answered first. */
@Injectable()
class WriteDrain implements BeforeApplicationShutdown {
  constructor(@Inject(WritesInFlight) private readonly writes: WritesInFlight) {}

  beforeApplicationShutdown(): Promise<void> {
    return this.writes.drain();
  }
}

@Global()
@Module({})
class RuntimeModule {
  static forRoot(runtime: AppRuntime): DynamicModule {
    const metrics = new Metrics();
    const databaseLog = new Logger('Database');
    const reachability = new DatabaseReachability({
      log: (level, fields, msg) => (level === 'info' ? databaseLog.log({ msg, ...fields }) : databaseLog.warn({ msg, ...fields })),
      onChange: (reachable) => metrics.databaseReachable.set(reachable ? 1 : 0),
    });
    const routes = runtime.routes ?? new RouteTable();
    return {
      module: RuntimeModule,
      providers: [
        { provide: CONFIG, useValue: runtime.config },
        { provide: API_KEYS, useValue: runtime.keys },
        { provide: Metrics, useValue: metrics },
        { provide: DatabaseReachability, useValue: reachability },
        { provide: RouteTable, useValue: routes },
        { provide: RateLimiter, useValue: runtime.limiter ?? new RateLimiter(runtime.config.rateLimitPerMinute) },
        { provide: WritesInFlight, useValue: runtime.writes ?? new WritesInFlight() },
        WriteDrain,
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        {
          provide: APP_FILTER,
          useFactory: () =>
            new ProblemDetailsFilter({
              bodyLimitBytes: runtime.config.bodyLimitBytes,
              onClientDisconnect: () => metrics.clientDisconnects.inc(),
              onDatabaseUnavailable: (error) => reachability.unreachable('request', error),
              allowedMethods: (path) => routes.allowedMethods(path),
            }),
        },
      ],
      exports: [CONFIG, API_KEYS, Metrics, DatabaseReachability, RateLimiter, RouteTable],
    };
  }
}

@Module({})
export class AppModule {
  static forRoot(runtime: AppRuntime): DynamicModule {
    return {
      module: AppModule,
      imports: [
        RuntimeModule.forRoot(runtime),
        DatabaseModule.forRoot({
          url: runtime.databaseUrl,
          poolSize: runtime.config.dbPoolSize,
          appendInFlight: runtime.config.appendInFlight,
          appendLingerMs: runtime.config.appendLingerMs,
          config: runtime.config,
        }),
        CqrsModule.forRoot(),
        // Its own log line per failed probe would repeat an outage every few seconds; the reachability state logs it once.
        TerminusModule.forRoot({ logger: false }),
        SessionsModule,
        RecoveryModule,
        AuditModule,
        ImportModule,
      ],
      controllers: [HealthController, MetricsController, KeyScopesController],
    };
  }
}
