import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import pg from 'pg';
import { CommitOutcomeUnknown } from './append-batch.outcomes.js';
import { ConcurrencyError, IdempotencyKeyTaken, type InlineProjection } from './event-store.js';
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

  it('sends the first write of an idle store at once, alone', async () => {
    const sizes: number[] = [];
    const { store } = postgresHarness(database.url, [], { onBatch: (n) => sizes.push(n) });
    for (let i = 1; i <= 3; i++) await store.append(id('idle'), [ev(i)]);
    expect(sizes).toEqual([1, 1, 1]);
    await store.close();
  });

  describe('with fused inline projections only (the batch is one statement, its own transaction)', () => {
    const fusedRows: InlineProjection = {
      name: 'fused_rows',
      fused: {
        text: `INSERT INTO fused_rows (stream_id, version)
               SELECT DISTINCT ON (a.stream_id) a.stream_id, a.version FROM appended a ORDER BY a.stream_id, a.version DESC
               ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version RETURNING 1`,
        valueCount: 0,
        values: () => [],
      },
    };
    const rowsOf = async (streams: string[]) => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query('SELECT stream_id, version::int FROM fused_rows WHERE stream_id = ANY($1) ORDER BY stream_id', [streams]);
      await client.end();
      return Object.fromEntries(rows.map((row) => [row.stream_id, row.version]));
    };
    beforeAll(async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query('CREATE TABLE IF NOT EXISTS fused_rows (stream_id text PRIMARY KEY, version bigint NOT NULL)');
      await client.end();
    });

    it('writes rows only for the appends the batch made: not for a conflict, a duplicate, or a stream another writer moved', async () => {
      const sizes: number[] = [];
      const { store } = postgresHarness(database.url, [fusedRows], { groupCommit: { maxInFlight: 1 }, onBatch: (n) => sizes.push(n) });
      const [ok, conflict, twice, dup, moved] = ['ok', 'conflict', 'twice', 'dup', 'moved'].map((label) => id(`fused-${label}`));
      await store.append(moved, [ev(1)], { expectedVersion: 0 });
      await store.append(dup, [ev(1)], { expectedVersion: 0, idempotencyKeys: ['k'] });
      // Submitted in one tick: they leave in one batch (with `first`, or right after it).
      const first = store.append(id('fused-first'), [ev(1)], { expectedVersion: 0 });
      const outcomes = await Promise.allSettled([
        store.append(ok, [ev(1), ev(2)], { expectedVersion: 0 }),
        store.append(conflict, [ev(1)], { expectedVersion: 3 }),
        store.append(twice, [ev(1)], { expectedVersion: 0 }),
        store.append(twice, [ev(2)], { expectedVersion: 5 }),
        store.append(dup, [ev(2)], { expectedVersion: 1, idempotencyKeys: ['k'] }),
        // Expects 0 and would reach version 1, which exists already: a conflict, no row.
        store.append(moved, [ev(9)], { expectedVersion: 0 }),
      ]);
      await first;
      expect(sizes.at(-1)).toBeGreaterThanOrEqual(6);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'rejected', 'rejected']);
      expect(await rowsOf([ok, conflict, twice, dup, moved])).toEqual({ [ok]: 2, [twice]: 1, [dup]: 1, [moved]: 1 });
      await store.close();
    });

    it('writes the rows of a batch at known heads (the set-based append) in the same statement', async () => {
      const statements: [string, number][] = [];
      const { store } = postgresHarness(database.url, [fusedRows], {
        groupCommit: { maxInFlight: 1 },
        onAppendStatement: (statement, items) => statements.push([statement, items]),
      });
      const streams = Array.from({ length: 4 }, (_, i) => id(`fused-heads-${i}`));
      await Promise.all(streams.map((s) => store.append(s, [ev(1)], { expectedVersion: 0 })));
      const firstRound = statements.length;
      await Promise.all(streams.map((s) => store.append(s, [ev(2), ev(3)], { expectedVersion: 1 })));
      const secondRound = statements.slice(firstRound);
      expect(secondRound.every(([statement]) => statement === 'known-heads')).toBe(true);
      // The first append leaves alone (an idle store), the other three together.
      expect(secondRound.map(([, items]) => items)).toEqual([1, 3]);
      expect(await rowsOf(streams)).toEqual(Object.fromEntries(streams.map((s) => [s, 3])));
      await store.close();
    });

    it('writes one row for two appends to one stream in one batch (the function), at the newer version', async () => {
      const sizes: number[] = [];
      const { store } = postgresHarness(database.url, [fusedRows], { groupCommit: { maxInFlight: 1 }, onBatch: (n) => sizes.push(n) });
      const stream = id('fused-same-stream');
      const first = store.append(id('fused-same-first'), [ev(1)], { expectedVersion: 0 });
      const outcomes = await Promise.all([store.append(stream, [ev(1)], { expectedVersion: 0 }), store.append(stream, [ev(2), ev(3)], { expectedVersion: 1 })]);
      await first;
      expect(sizes).toEqual([1, 2]);
      expect(outcomes.map((o) => o.version)).toEqual([1, 3]);
      expect(await rowsOf([stream])).toEqual({ [stream]: 3 });
      await store.close();
    });

    it('runs a hook projection in the same transaction as the fused statement, and rolls both back together', async () => {
      const poisoned = id('fused-hook-poisoned');
      const seen: string[] = [];
      const hook: InlineProjection = {
        name: 'hook',
        async project(tx, appended) {
          const client = tx as pg.ClientBase;
          // The fused statement's row is visible inside the transaction the hook runs in.
          const { rows } = await client.query('SELECT stream_id FROM fused_rows WHERE stream_id = ANY($1)', [appended.map((a) => a.streamId)]);
          seen.push(...rows.map((row: { stream_id: string }) => row.stream_id));
          if (appended.some((a) => a.streamId === poisoned)) throw new Error('hook refuses');
        },
      };
      const { store } = postgresHarness(database.url, [fusedRows, hook], { groupCommit: { maxInFlight: 1 } });
      const fine = id('fused-hook-fine');
      await expect(store.append(fine, [ev(1)], { expectedVersion: 0 })).resolves.toMatchObject({ version: 1 });
      await expect(store.append(poisoned, [ev(1)], { expectedVersion: 0 })).rejects.toBeInstanceOf(InlineProjectionError);
      expect(seen).toEqual([fine, poisoned]);
      expect(await rowsOf([fine, poisoned])).toEqual({ [fine]: 1 });
      expect(await store.readStream(poisoned)).toEqual([]);
      await store.close();
    });

    it('rolls the whole batch back when a fused statement fails, then commits every append but the culprit', async () => {
      const poisoned = id('fused-poisoned');
      const fine = Array.from({ length: 3 }, (_, i) => id(`fused-fine-${i}`));
      const divides: InlineProjection = {
        name: 'divides',
        fused: { text: 'SELECT 1 / (CASE WHEN a.stream_id = $1 THEN 0 ELSE 1 END) FROM appended a', valueCount: 1, values: () => [poisoned] },
      };
      const { store } = postgresHarness(database.url, [fusedRows, divides], { groupCommit: { maxInFlight: 1 } });
      const first = store.append(id('fused-first'), [ev(1)], { expectedVersion: 0 });
      const outcomes = await Promise.allSettled([...fine, poisoned].map((s) => store.append(s, [ev(1)], { expectedVersion: 0 })));
      await first;
      expect(outcomes.slice(0, 3).every((o) => o.status === 'fulfilled')).toBe(true);
      expect(outcomes[3].status === 'rejected' && outcomes[3].reason).toMatchObject({ code: '22012' });
      expect(await store.readStream(poisoned)).toEqual([]);
      expect(await rowsOf([...fine, poisoned])).toEqual(Object.fromEntries(fine.map((s) => [s, 1])));
      await store.close();
    });

    it('fails every append of a batch whose connection breaks mid-statement, stores none, and appends again after', async () => {
      const slow: InlineProjection = {
        name: 'slow',
        fused: { text: 'SELECT pg_sleep(CASE WHEN count(*) > 1 THEN 10 ELSE 0 END) FROM appended a', valueCount: 0, values: () => [] },
      };
      const application = `fused-sever-${process.pid}-${Date.now()}`;
      const pool = new pg.Pool({ connectionString: database.url, max: 4, application_name: application });
      const { PostgresEventStore } = await import('./postgres-event-store.js');
      const store = new PostgresEventStore(pool, { inline: [fusedRows, slow], groupCommit: { maxInFlight: 1 } });
      const streams = Array.from({ length: 4 }, (_, i) => id(`fused-severed-${i}`));
      const first = store.append(id('fused-sever-first'), [ev(1)], { expectedVersion: 0 });
      const pending = streams.map((s) => store.append(s, [ev(1)], { expectedVersion: 0 }));
      await first;
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      let killed = 0;
      for (let tries = 0; tries < 100 && killed === 0; tries++) {
        const { rowCount } = await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND query LIKE '%pg_sleep%'`,
          [application],
        );
        killed = rowCount ?? 0;
        if (killed === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await admin.end();
      expect(killed).toBe(1);
      const outcomes = await Promise.allSettled(pending);
      expect(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof CommitOutcomeUnknown)).toBe(true);
      expect((await Promise.all(streams.map((s) => store.readStream(s)))).map((e) => e.length)).toEqual([0, 0, 0, 0]);
      expect(await rowsOf(streams)).toEqual({});
      await expect(store.append(streams[0], [ev(1)], { expectedVersion: 0 })).resolves.toMatchObject({ version: 1 });
      await store.close();
    });
  });
});
