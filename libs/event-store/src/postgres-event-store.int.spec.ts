import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { ConcurrencyError, type InlineProjection } from './event-store.js';
import { PostgresEventStore } from './postgres-event-store.js';
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

describe(`relaxed appends on the ${server}`, () => {
  const citus = process.env.CHRONICLE_TEST_ENGINE === 'citus';
  const token = (n: number) => ({ type: 'Token', data: { n } });

  it('commits a relaxed batch with synchronous_commit off and answers durable: false; a durable one flushed', async () => {
    const seen: string[] = [];
    const probe: InlineProjection<pg.ClientBase> = {
      name: 'synchronous-commit-probe',
      project: async (tx) => {
        seen.push((await tx.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit);
      },
    };
    // The test server runs with synchronous_commit off for speed: this store's sessions turn it on, as a durable server has it.
    const pool = new pg.Pool({ connectionString: database.url, max: 2, pipeline: true, options: '-c synchronous_commit=on' });
    const store = new PostgresEventStore(pool, { inline: citus ? [] : [probe], engine: database.engine });
    const relaxed = await store.append('relaxed-a', [token(1), token(2)], { expectedVersion: 0, durability: 'relaxed' });
    const durable = await store.append('relaxed-a', [token(3)], { expectedVersion: 2 });
    // On Citus the routed call commits on its node in a transaction of its own: durable, and it says so.
    expect([relaxed.durable, durable.durable]).toEqual([citus, true]);
    if (!citus) expect(seen).toEqual(['off', 'on']);
    expect((await store.readStream('relaxed-a')).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    await pool.end();
  });

  it('keeps the checks of a durable append: a moved stream is refused, alone, and nothing of it is stored', async () => {
    const { store } = postgresHarness(database.url, [], { engine: database.engine });
    await store.append('relaxed-b', [token(1)], { expectedVersion: 0, durability: 'relaxed' });
    const [late, fine] = await Promise.allSettled([
      store.append('relaxed-b', [token(2)], { expectedVersion: 0, durability: 'relaxed' }),
      store.append('relaxed-c', [token(1)], { expectedVersion: 0, durability: 'relaxed' }),
    ]);
    expect(late.status).toBe('rejected');
    expect((late as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyError);
    expect(fine).toMatchObject({ status: 'fulfilled', value: { version: 1 } });
    expect(await store.readStream('relaxed-b')).toHaveLength(1);
  });
});
