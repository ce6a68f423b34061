import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { HeadReader } from './head-reader.js';
import { postgresHarness } from './testing/postgres-harness.js';

let database: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

const ev = (n: number) => ({ type: 'Noted', data: { n } });

/** A pool whose queries are counted, and whose answers can be held back after the statement ran. */
function countingPool() {
  let statements = 0;
  let gate: Promise<void> | null = null;
  const counted = Object.create(pool) as pg.Pool;
  counted.query = (async (...args: Parameters<pg.Pool['query']>) => {
    statements += 1;
    const held = gate;
    const result = await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
    if (held) await held;
    return result;
  }) as pg.Pool['query'];
  return {
    pool: counted,
    statements: () => statements,
    hold() {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = null;
        release();
      };
    },
  };
}

describe('coalesced stream-head reads', () => {
  it('answers the reads that arrive during a statement with one statement, each stream its own head', async () => {
    const { store } = postgresHarness(database.url, []);
    await store.append('heads-a', [ev(1), ev(2)]);
    await store.append('heads-b', [ev(1)]);
    const counting = countingPool();
    const reader = new HeadReader(counting.pool);
    const release = counting.hold();
    const first = reader.read('heads-a');
    const rest = Array.from({ length: 30 }, (_, i) => reader.read(['heads-a', 'heads-b', 'heads-none'][i % 3]!));
    release();
    const [head, ...heads] = await Promise.all([first, ...rest]);
    expect(head?.version).toBe(2);
    expect(heads.map((h) => h?.version ?? null).slice(0, 3)).toEqual([2, 1, null]);
    expect(counting.statements()).toBe(2);
    await store.close();
  });

  it('never answers a read from a statement that began before it was asked', async () => {
    const { store } = postgresHarness(database.url, []);
    await store.append('heads-late', [ev(1)]);
    const counting = countingPool();
    const reader = new HeadReader(counting.pool);
    const release = counting.hold();
    const before = reader.read('heads-late');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Acknowledged while the first read's answer is on its way: a read asked afterwards must see it.
    await store.append('heads-late', [ev(2)], { expectedVersion: 1 });
    const after = reader.read('heads-late');
    release();
    expect((await before)?.version).toBe(1);
    expect((await after)?.version).toBe(2);
    expect(counting.statements()).toBe(2);
    await store.close();
  });

  it('rejects every read of a failed statement, and serves the next ones', async () => {
    const broken = Object.create(pool) as pg.Pool;
    let fail = true;
    broken.query = ((...args: unknown[]) =>
      fail ? Promise.reject(new Error('connection lost')) : (pool.query as (...a: unknown[]) => unknown)(...args)) as pg.Pool['query'];
    const reader = new HeadReader(broken);
    await expect(reader.read('heads-x')).rejects.toThrow('connection lost');
    fail = false;
    await expect(reader.read('heads-x')).resolves.toBeNull();
  });
});
