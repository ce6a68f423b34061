import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.js';
import { MasterKeys } from './master-keys.js';
import { SessionKeyring } from './session-keyring.js';

/**
 * The keyring's memory of unwrapped keys: bounded, least recently used dropped first, counted in the key table's
 * reads. (A hit moves its key to the recent end only once it is in the older half, a cost no read shows: what these
 * tests hold is that such a key is still never dropped, and that one nobody asks for is.)
 */
let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

/** A keyring over the test pool, counting the statements it sends (each read of the key table is one). */
async function newKeyring(cacheSize: number): Promise<{ keyring: SessionKeyring; queries: () => number }> {
  let count = 0;
  const counting = new Proxy(pool, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== 'query' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => {
        count += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const keyring = new SessionKeyring(counting, MasterKeys.parse(randomBytes(32).toString('base64')), { cacheSize });
  await keyring.ensureSchema();
  return { keyring, queries: () => count };
}

describe('SessionKeyring memory', () => {
  it('keeps a key asked for between every two new ones, however many come, and drops the ones nobody asks for', async () => {
    const { keyring, queries } = await newKeyring(4);
    const hot = await keyring.keyForWrite('stream-hot');
    for (let i = 0; i < 20; i += 1) {
      await keyring.keyForWrite(`stream-cold-${i}`);
      const before = queries();
      expect(await keyring.keyFor('stream-hot')).toEqual(hot);
      expect(queries()).toBe(before);
    }
    // A cold key long since dropped is read from the table again, and still opens as the same key.
    const before = queries();
    const cold = await keyring.keyFor('stream-cold-0');
    expect(cold).not.toBeNull();
    expect(queries()).toBe(before + 1);
    // The newest keys are all still held (the cache holds four: hot, and three of the cold ones).
    const held = queries();
    for (const id of ['stream-cold-19', 'stream-cold-18']) await keyring.keyFor(id);
    expect(queries()).toBe(held);
  });

  it('still drops the least recently used key when no key is asked for again', async () => {
    const { keyring, queries } = await newKeyring(3);
    for (let i = 0; i < 4; i += 1) await keyring.keyForWrite(`lru-${i}`);
    const before = queries();
    await keyring.keyFor('lru-0');
    expect(queries()).toBe(before + 1);
  });
});
