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

// Also run by the citus jest project (jest.config.js CITUS_SUITES), its database on a coordinator and two workers.
const server = process.env.CHRONICLE_TEST_ENGINE === 'citus' ? 'Citus coordinator and two workers' : 'test PostgreSQL 15 server';
eventStoreContract(server, async (inline) => postgresHarness(database.url, inline, { engine: database.engine }), {
  hookProjections: process.env.CHRONICLE_TEST_ENGINE !== 'citus',
});
