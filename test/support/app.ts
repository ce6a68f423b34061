import type { App } from 'supertest/types.js';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import type pino from 'pino';
import { loadConfig, parseApiKeys } from '#platform';
import { createApp } from '../../apps/session-api/src/app.factory.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { TEST_MASTER_KEY } from './master-key.js';

export const KEYS = {
  admin: 'test-admin-key',
  ingest: 'test-ingest-key',
  read: 'test-read-key',
} as const;

export const TEST_KEYS_SPEC = `${KEYS.admin}:admin,${KEYS.ingest}:ingest,${KEYS.read}:read`;

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

export { TEST_MASTER_KEY };

export interface TestApp {
  readonly app: NestFastifyApplication;
  readonly server: App;
  readonly database: TestDatabase;
  /** A query on the app's database, as an operator or another replica would send it (one connection, opened on first use). */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  /** How many events the store holds: a refused request stores nothing. */
  storedEvents(): Promise<number>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** CHRONICLE_API_KEYS syntax; the three test keys by default. */
  readonly keys?: string;
  /** A logger to read the app's log lines from. */
  readonly log?: pino.Logger;
  /** The URL the app connects with, made from its database's (a proxy in front of it); the database's own by default. */
  readonly connectVia?: (databaseUrl: string) => Promise<string>;
}

/**
 * Boots the real HTTP app on its own fresh database (cloned from the migrated template). `createApp`
 * answers an app that is initialised and whose Fastify instance is ready, so supertest can drive
 * `getHttpServer()` at once.
 */
export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const databaseUrl = options.connectVia ? await options.connectVia(database.url) : database.url;
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    CHRONICLE_RECOVERY_INTERVAL_MS: '0',
    CHRONICLE_MASTER_KEY: TEST_MASTER_KEY,
    ...env,
    DATABASE_URL: databaseUrl,
  });
  const keys = parseApiKeys(options.keys ?? TEST_KEYS_SPEC);
  const app = await createApp({ config, databaseUrl, keys, log: options.log });
  let pool: pg.Pool | undefined;
  const query = async <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => {
    pool ??= new pg.Pool({ connectionString: database.url, max: 1 });
    return (await pool.query<R>(sql, params)).rows;
  };
  return {
    app,
    server: app.getHttpServer(),
    database,
    query,
    storedEvents: async () => (await query<{ n: number }>('SELECT count(*)::int AS n FROM events'))[0].n,
    async close() {
      await pool?.end();
      await app.close();
      await database.drop();
    },
  };
}
