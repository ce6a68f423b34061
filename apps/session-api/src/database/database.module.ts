import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { PostgresEventStore } from '#event-store';

export const PG_POOL = Symbol('PG_POOL');
export const EVENT_STORE = Symbol('EVENT_STORE');

// bigint columns (counts, versions) come back as strings unless read through ::int; keep pg's default.
@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(PG_POOL) private readonly pool: pg.Pool) {}

  static forRoot(options: { url: string; poolSize: number }): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: PG_POOL,
          useFactory: () => {
            const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize });
            // An idle client's error (server restart) must not crash the process; the next query reconnects.
            pool.on('error', () => undefined);
            return pool;
          },
        },
        { provide: EVENT_STORE, useFactory: (pool: pg.Pool) => new PostgresEventStore(pool), inject: [PG_POOL] },
      ],
      exports: [PG_POOL, EVENT_STORE],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
