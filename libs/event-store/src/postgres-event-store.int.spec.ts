import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { PostgresEventStore } from './postgres-event-store.js';
import { eventStoreContract } from './testing/event-store.contract.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

eventStoreContract('test PostgreSQL 15 server', async () => {
  return new PostgresEventStore(new pg.Pool({ connectionString: database.url, max: 10 }));
});
