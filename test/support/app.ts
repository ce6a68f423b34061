import type { App } from 'supertest/types.js';
import type { INestApplication } from '@nestjs/common';
import { loadConfig, parseApiKeys } from '#platform';
import { createApp } from '../../apps/session-api/src/app.factory.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export const KEYS = {
  admin: 'test-admin-key',
  ingest: 'test-ingest-key',
  read: 'test-read-key',
} as const;

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

export interface TestApp {
  readonly app: INestApplication;
  readonly server: App;
  readonly database: TestDatabase;
  close(): Promise<void>;
}

/** Boots the real HTTP app on its own fresh database (cloned from the migrated template). */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    CHRONICLE_RECOVERY_INTERVAL_MS: '0',
    ...env,
    DATABASE_URL: database.url,
  });
  const keys = parseApiKeys(`${KEYS.admin}:admin,${KEYS.ingest}:ingest,${KEYS.read}:read`);
  const app = await createApp({ config, databaseUrl: database.url, keys });
  await app.init();
  return {
    app,
    server: app.getHttpServer(),
    database,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
