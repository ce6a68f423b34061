import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
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
});
