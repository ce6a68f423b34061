import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import pg from 'pg';
import { ConcurrencyError, IdempotencyKeyTaken, type InlineProjection, writtenInThisTransaction } from './event-store.js';
import { InlineProjectionError } from './inline-projection.error.js';
import { postgresHarness } from './testing/postgres-harness.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

const ev = (n: number) => ({ type: 'Noted', data: { n } });
let seq = 0;
const id = (label: string) => `${label}-${++seq}`;

/** One slot and a first append held open: everything submitted meanwhile must leave as one batch. */
async function withOneBatch<T>(inline: InlineProjection[], submit: (store: ReturnType<typeof postgresHarness>['store']) => Promise<T>[]) {
  const sizes: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const hold: InlineProjection = {
    name: 'hold',
    async project(_tx, appended) {
      if (appended.some((a) => a.context === 'hold')) await gate;
    },
  };
  const { store } = postgresHarness(database.url, [hold, ...inline], { groupCommit: { maxInFlight: 1 }, onBatch: (n) => sizes.push(n) });
  const first = store.append(id('first'), [ev(0)], { context: 'hold' });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const pending = submit(store);
  release();
  await first;
  const outcomes = await Promise.allSettled(pending);
  await store.close();
  return { sizes, outcomes };
}

describe('group commit on PostgreSQL', () => {
  it('sends the appends that arrive during a commit together, each with its own outcome', async () => {
    const streams = Array.from({ length: 10 }, (_, i) => id(`batch-${i}`));
    const dup = id('dup');
    const { sizes, outcomes } = await withOneBatch([], (store) => [
      ...streams.map((s, i) => store.append(s, [ev(1), ev(2)], { expectedVersion: i === 3 ? 7 : 0 })),
      store.append(dup, [ev(1)], { idempotencyKeys: ['run:a'] }),
      store.append(dup, [ev(2)], { idempotencyKeys: ['run:a'] }),
    ]);
    expect(sizes).toEqual([1, 12]);
    outcomes.slice(0, 10).forEach((o, i) => {
      if (i === 3) expect(o.status === 'rejected' && o.reason).toBeInstanceOf(ConcurrencyError);
      else expect(o).toMatchObject({ status: 'fulfilled', value: { version: 2 } });
    });
    expect(outcomes[10]).toMatchObject({ status: 'fulfilled', value: { version: 1 } });
    expect(outcomes[11].status === 'rejected' && outcomes[11].reason).toBeInstanceOf(IdempotencyKeyTaken);
  });

  it('retries each append alone when an inline projection fails for one of them, so only that one fails', async () => {
    const poisoned = id('poisoned');
    const fine = Array.from({ length: 5 }, (_, i) => id(`fine-${i}`));
    const picky: InlineProjection = {
      name: 'picky',
      async project(_tx, appended) {
        if (appended.some((a) => a.streamId === poisoned)) throw new Error('cannot project this one');
      },
    };
    const { sizes, outcomes } = await withOneBatch([picky], (store) => [
      ...fine.map((s) => store.append(s, [ev(1)])),
      store.append(poisoned, [ev(1)]),
    ]);
    expect(sizes).toEqual([1, 6]);
    expect(outcomes.slice(0, 5).every((o) => o.status === 'fulfilled')).toBe(true);
    expect(outcomes[5].status === 'rejected' && outcomes[5].reason).toBeInstanceOf(InlineProjectionError);
  });

  it('rolls a batch back when a declared statement fails, then commits every append but the culprit', async () => {
    const poisoned = id('poisoned-sql');
    const fine = Array.from({ length: 4 }, (_, i) => id(`fine-sql-${i}`));
    const divides: InlineProjection = {
      name: 'divides',
      statements: (appended) => [
        { text: 'SELECT 1 / (CASE WHEN $1 = ANY ($2::text[]) THEN 0 ELSE 1 END)', values: [poisoned, appended.map((a) => a.streamId)] },
      ],
    };
    const { sizes, outcomes } = await withOneBatch([divides], (store) => [
      ...fine.map((s) => store.append(s, [ev(1)])),
      store.append(poisoned, [ev(1)]),
    ]);
    expect(sizes).toEqual([1, 5]);
    expect(outcomes.slice(0, 4).every((o) => o.status === 'fulfilled')).toBe(true);
    expect(outcomes[4].status === 'rejected' && outcomes[4].reason).toBeInstanceOf(InlineProjectionError);
    const { store } = postgresHarness(database.url, []);
    expect(await store.readStream(poisoned)).toEqual([]);
    expect((await Promise.all(fine.map((s) => store.readStream(s)))).map((e) => e.length)).toEqual([1, 1, 1, 1]);
    await store.close();
  });

  it('sends the first write of an idle store at once, alone', async () => {
    const sizes: number[] = [];
    const { store } = postgresHarness(database.url, [], { onBatch: (n) => sizes.push(n) });
    for (let i = 1; i <= 3; i++) await store.append(id('idle'), [ev(i)]);
    expect(sizes).toEqual([1, 1, 1]);
    await store.close();
  });

  describe('with guarded inline projections only (BEGIN, append, statements and COMMIT in one write)', () => {
    const guardedRows: InlineProjection = {
      name: 'guarded_rows',
      guarded: true,
      statements: (appended) => [
        {
          text: `INSERT INTO guarded_rows (stream_id, version)
                 SELECT DISTINCT ON (t.stream_id) t.stream_id, t.version FROM unnest($1::text[], $2::bigint[]) AS t(stream_id, version)
                  WHERE ${writtenInThisTransaction('t.stream_id', 't.version')} ORDER BY t.stream_id, t.version DESC
                 ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version`,
          values: [appended.map((a) => a.streamId), appended.map((a) => a.version)],
        },
      ],
    };
    const rowsOf = async (streams: string[]) => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query('SELECT stream_id, version::int FROM guarded_rows WHERE stream_id = ANY($1) ORDER BY stream_id', [streams]);
      await client.end();
      return Object.fromEntries(rows.map((row) => [row.stream_id, row.version]));
    };
    beforeAll(async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query('CREATE TABLE IF NOT EXISTS guarded_rows (stream_id text PRIMARY KEY, version bigint NOT NULL)');
      await client.end();
    });

    it('writes rows only for the appends the batch made: not for a conflict, a duplicate, or a stream another writer moved', async () => {
      const sizes: number[] = [];
      const { store } = postgresHarness(database.url, [guardedRows], { groupCommit: { maxInFlight: 1 }, onBatch: (n) => sizes.push(n) });
      const [ok, conflict, twice, dup, moved] = ['ok', 'conflict', 'twice', 'dup', 'moved'].map((label) => id(`guarded-${label}`));
      await store.append(moved, [ev(1)], { expectedVersion: 0 });
      await store.append(dup, [ev(1)], { expectedVersion: 0, idempotencyKeys: ['k'] });
      // Submitted in one tick: they leave in one batch (with `first`, or right after it).
      const first = store.append(id('guarded-first'), [ev(1)], { expectedVersion: 0 });
      const outcomes = await Promise.allSettled([
        store.append(ok, [ev(1), ev(2)], { expectedVersion: 0 }),
        store.append(conflict, [ev(1)], { expectedVersion: 3 }),
        store.append(twice, [ev(1)], { expectedVersion: 0 }),
        store.append(twice, [ev(2)], { expectedVersion: 5 }),
        store.append(dup, [ev(2)], { expectedVersion: 1, idempotencyKeys: ['k'] }),
        // Expects 0 and would reach version 1, which exists already (another writer's): not this transaction's.
        store.append(moved, [ev(9)], { expectedVersion: 0 }),
      ]);
      await first;
      expect(sizes.at(-1)).toBeGreaterThanOrEqual(6);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'rejected', 'rejected']);
      expect(await rowsOf([ok, conflict, twice, dup, moved])).toEqual({ [ok]: 2, [twice]: 1, [dup]: 1, [moved]: 1 });
      await store.close();
    });

    it('rolls the whole batch back when a guarded statement fails, then commits every append but the culprit', async () => {
      const poisoned = id('guarded-poisoned');
      const fine = Array.from({ length: 3 }, (_, i) => id(`guarded-fine-${i}`));
      const divides: InlineProjection = {
        name: 'divides',
        guarded: true,
        statements: (appended) => [
          { text: 'SELECT 1 / (CASE WHEN $1 = ANY ($2::text[]) THEN 0 ELSE 1 END)', values: [poisoned, appended.map((a) => a.streamId)] },
        ],
      };
      const { store } = postgresHarness(database.url, [guardedRows, divides], { groupCommit: { maxInFlight: 1 } });
      const first = store.append(id('guarded-first'), [ev(1)], { expectedVersion: 0 });
      const outcomes = await Promise.allSettled([...fine, poisoned].map((s) => store.append(s, [ev(1)], { expectedVersion: 0 })));
      await first;
      expect(outcomes.slice(0, 3).every((o) => o.status === 'fulfilled')).toBe(true);
      expect(outcomes[3].status === 'rejected' && outcomes[3].reason).toBeInstanceOf(InlineProjectionError);
      expect(await store.readStream(poisoned)).toEqual([]);
      expect(await rowsOf([...fine, poisoned])).toEqual(Object.fromEntries(fine.map((s) => [s, 1])));
      await store.close();
    });
  });
});
