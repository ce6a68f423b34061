import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../test/support/database.js';
import { knownMigrationNames, revertLastMigration, runMigrations } from '#platform';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

async function tables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'typeorm_migrations' ORDER BY 1`,
    );
    return result.rows.map((r) => r.table_name);
  } finally {
    await client.end();
  }
}

describe('migrations', () => {
  it('are all applied to the test template and every one reverts with its down', async () => {
    expect(await tables(database.url)).toEqual([
      'events',
      'host_boots',
      'idempotency_keys',
      'live_streams',
      'projection_checkpoints',
      'run_leases',
      'session_index',
      'session_snapshots',
      'session_summaries',
      'streams',
    ]);
    for (let i = 0; i < knownMigrationNames.length; i++) await revertLastMigration(database.url);
    expect(await tables(database.url)).toEqual([]);
    expect(await runMigrations(database.url)).toEqual([...knownMigrationNames]);
    expect(await runMigrations(database.url)).toEqual([]);
  });
});
