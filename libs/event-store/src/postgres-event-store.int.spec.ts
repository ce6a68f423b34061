import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { eventStoreContract } from './testing/event-store.contract.js';
import { postgresHarness } from './testing/postgres-harness.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

eventStoreContract('test PostgreSQL 15 server', async (inline) => postgresHarness(database.url, inline));
