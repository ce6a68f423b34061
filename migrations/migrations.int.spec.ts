import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../test/support/database.js';
import { knownMigrationNames, revertLastMigration, runMigrations } from '#platform';
import { SCALE_OUT_IRREVERSIBLE_ON_CITUS } from './1764500007000-scale-out.js';

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
    // Citus's own views (citus_tables, citus_schemas, …) are the extension's, not the migrations'.
    const result = await client.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'typeorm_migrations' AND table_name NOT LIKE 'citus\\_%' ORDER BY 1`,
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
    if (database.engine === 'citus') return;
    for (let i = 0; i < knownMigrationNames.length; i++) await revertLastMigration(database.url);
    expect(await tables(database.url)).toEqual([]);
    expect(await runMigrations(database.url)).toEqual([...knownMigrationNames]);
    expect(await runMigrations(database.url)).toEqual([]);
  });

  it('on Citus, revert down to the scale-out and refuse it whole, with what to do instead', async () => {
    if (database.engine !== 'citus') return;
    const scaleOut = knownMigrationNames.indexOf('ScaleOut1764500007000');
    for (let i = knownMigrationNames.length - 1; i > scaleOut; i--) await revertLastMigration(database.url);
    await expect(revertLastMigration(database.url)).rejects.toThrow(SCALE_OUT_IRREVERSIBLE_ON_CITUS);
    // Still a whole cluster schema: the scale-out applied, the migrations after it applied again.
    expect(await runMigrations(database.url)).toEqual(knownMigrationNames.slice(scaleOut + 1));
    const { rows } = await (async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return await client.query(`SELECT count(*)::int AS n FROM citus_tables WHERE table_name = 'events'::regclass`);
      } finally {
        await client.end();
      }
    })();
    expect(rows[0].n).toBe(1);
  });
});
