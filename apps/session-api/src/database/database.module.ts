import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { type EventStore, instrumentEventStore, keyringFromSettings, parseMasterKey, resolveMasterKeys, type SessionKeyring } from '#event-store';
import { type ChronicleConfig, ConfigError, DatabaseReachability, Metrics } from '#platform';
import { createSessionEventStore } from '#read-models';

export const PG_POOL = Symbol('PG_POOL');
export const EVENT_STORE = Symbol('EVENT_STORE');
/** The session data keys (`SessionKeyring`), or null when content is stored plain (CHRONICLE_ENCRYPTION=off). */
export const KEYRING = Symbol('KEYRING');

/**
 * The master keys the environment names, checked before anything starts (main calls it after `loadConfig`): a
 * malformed one is a configuration error naming its variable, not a failure after migrations ran.
 */
export function checkMasterKeys(config: ChronicleConfig): void {
  if (!config.encryption) return;
  const named: [string, string][] = [
    ...(config.masterKey === undefined ? [] : [['CHRONICLE_MASTER_KEY', config.masterKey] as [string, string]]),
    ...config.previousMasterKeys.map((key) => ['CHRONICLE_MASTER_KEY_PREVIOUS', key] as [string, string]),
  ];
  for (const [variable, key] of named) {
    try {
      parseMasterKey(key);
    } catch (error) {
      throw new ConfigError(`invalid configuration: ${variable}: ${(error as Error).message}`, { cause: error });
    }
  }
}

/** The keyring the config asks for: its master keys (the data folder's when unset) and its key store. */
export async function keyringFromConfig(config: ChronicleConfig, databaseUrl: string): Promise<SessionKeyring | null> {
  checkMasterKeys(config);
  try {
    resolveMasterKeys(config);
  } catch (error) {
    // The data folder's key file: the only key not checked above.
    throw new ConfigError(`invalid configuration: the master key kept in ${config.dataDir}: ${(error as Error).message}`, { cause: error });
  }
  return keyringFromSettings(config, databaseUrl);
}

// bigint columns (counts, versions) come back as strings unless read through ::int; keep pg's default.
@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(KEYRING) private readonly keyring: SessionKeyring | null,
  ) {}

  static forRoot(options: { url: string; poolSize: number; appendInFlight?: number; appendLingerMs?: number; config: ChronicleConfig }): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: KEYRING, useFactory: () => keyringFromConfig(options.config, options.url) },
        {
          provide: PG_POOL,
          useFactory: (metrics: Metrics, reachability: DatabaseReachability) => {
            // Pipeline mode: an append batch's statements leave in one write (PipelinedTransaction).
            // A server that accepts connections and never answers, or stops answering on one already made (a
            // partition, a host gone without a reset), fails a request within the bounds (503) instead of holding
            // it; a statement given up drops its connection. Citus node pools take the same settings.
            const pool = new pg.Pool({
              connectionString: options.url,
              max: options.poolSize,
              pipeline: true,
              connectionTimeoutMillis: options.config.dbConnectTimeoutMs,
              query_timeout: options.config.dbQueryTimeoutMs || undefined,
            });
            // An idle client's error (server restart) must not crash the process; the next query reconnects.
            pool.on('error', (error) => reachability.absorbs('pool', error));
            // A new connection that answers is the database reachable (again, after an outage: the pool drops
            // broken clients). Its answer, not the connect event alone: a connection made just before the server
            // died can report 'connect' after the first failure was seen, and would end the outage falsely.
            pool.on('connect', (client) => {
              const askedAt = reachability.now();
              client.query('SELECT 1').then(
                () => reachability.reached(askedAt),
                () => undefined,
              );
            });
            metrics.watchPool(pool);
            return pool;
          },
          inject: [Metrics, DatabaseReachability],
        },
        {
          provide: EVENT_STORE,
          useFactory: async (pool: pg.Pool, metrics: Metrics, keyring: SessionKeyring | null) =>
            instrumentEventStore(
              await createSessionEventStore(pool, {
                keyring,
                onBatch: (size) => metrics.appendBatchSize.observe(size),
                groupCommit: {
                  ...(options.appendInFlight ? { maxInFlight: options.appendInFlight } : {}),
                  ...(options.appendLingerMs === undefined ? {} : { lingerMs: options.appendLingerMs }),
                },
              }),
              {
                appended({ outcome, seconds, types }) {
                  metrics.appends.inc({ outcome });
                  metrics.appendLatency.observe(seconds);
                  for (const type of types) metrics.appendedEvents.inc({ type });
                },
              },
            ),
          inject: [PG_POOL, Metrics, KEYRING],
        },
      ],
      exports: [PG_POOL, EVENT_STORE, KEYRING],
    };
  }

  /** The store ends its pool (and on Citus the pools it keeps to each node). */
  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
    await this.keyring?.close();
  }
}
