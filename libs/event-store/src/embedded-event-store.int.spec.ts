import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmbeddedDatabase, runMigrations, startEmbeddedDatabase } from '#platform';
import { eventStoreContract } from './testing/event-store.contract.js';
import { postgresHarness } from './testing/postgres-harness.js';

let embedded: EmbeddedDatabase;
beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'chronicle-embedded-'));
  embedded = await startEmbeddedDatabase({ dataDir, persistent: false });
  await runMigrations(embedded.url);
}, 120_000);
afterAll(async () => {
  await embedded?.stop();
});

eventStoreContract('embedded PostgreSQL (npm start default)', async (inline) => postgresHarness(embedded.url, inline));
