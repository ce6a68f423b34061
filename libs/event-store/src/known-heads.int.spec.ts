import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { canonicalJson } from '#domain';
import { chainHash, chainLink } from './event-hash.js';
import { ConcurrencyError, type NewEvent } from './event-store.js';
import { PostgresEventStore } from './postgres-event-store.js';

/**
 * Appends at a head the process knows: hashed in Node, checked in PostgreSQL under the row lock. Two stores
 * on one database play two replicas; each knows only the heads it committed itself.
 */
let database: TestDatabase;
const stores: PostgresEventStore[] = [];
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await database.drop();
});

function replica(): { store: PostgresEventStore; statements: string[] } {
  const statements: string[] = [];
  const store = new PostgresEventStore(new pg.Pool({ connectionString: database.url, max: 4, pipeline: true }), {
    onAppendStatement: (statement) => statements.push(statement),
  });
  stores.push(store);
  return { store, statements };
}

const ev = (n: number, text = `event ${n}`): NewEvent => ({ type: 'Noted', data: { n, text } });

async function verifyChain(store: PostgresEventStore, streamId: string): Promise<void> {
  let previous = '';
  for (const event of await store.readStream(streamId)) {
    expect(event.hash).toBe(chainHash(previous, event.version, event.type, event.data));
    previous = event.hash;
  }
  const head = await store.head(streamId);
  expect(head?.lastHash).toBe(previous);
}

it('hashes appends at a known head in Node exactly as the function does in SQL', async () => {
  const { store, statements } = replica();
  const id = 'known-a';
  await store.append(id, [ev(1)], { expectedVersion: 0 });
  await store.append(id, [ev(2, 'unicode ✓ "quotes" \\ and \u2028'), ev(3)], { expectedVersion: 1 });
  await store.append(id, [ev(4, '😀 surrogate pair')], { expectedVersion: 3 });
  expect(statements).toEqual(['function', 'known-heads', 'known-heads']);
  await verifyChain(store, id);
});

it('a head another replica moved is a conflict with the current version, and the next append asks the database', async () => {
  const a = replica();
  const b = replica();
  const id = 'known-b';
  await a.store.append(id, [ev(1)], { expectedVersion: 0 });
  await a.store.append(id, [ev(2)], { expectedVersion: 1 });
  await b.store.append(id, [ev(3)], { expectedVersion: 2 });
  const stale = a.store.append(id, [ev(99)], { expectedVersion: 2 });
  await expect(stale).rejects.toBeInstanceOf(ConcurrencyError);
  await expect(stale).rejects.toMatchObject({ actualVersion: 3 });
  await a.store.append(id, [ev(4)], { expectedVersion: 3 });
  expect(a.statements).toEqual(['function', 'known-heads', 'known-heads', 'function']);
  expect((await a.store.readStream(id)).map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3, 4]);
  await verifyChain(a.store, id);
});

it('writes nothing when the stored hash is not the one the process assumed', async () => {
  const { store, statements } = replica();
  const id = 'known-c';
  await store.append(id, [ev(1)], { expectedVersion: 0 });
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`UPDATE streams SET last_hash = 'not-the-hash' WHERE stream_id = $1`, [id]);
  await admin.end();
  await expect(store.append(id, [ev(2)], { expectedVersion: 1 })).rejects.toBeInstanceOf(ConcurrencyError);
  expect(statements).toEqual(['function', 'known-heads']);
  expect((await store.readStream(id)).map((e) => e.version)).toEqual([1]);
});

it('one batch mixes streams at known heads; a stale one conflicts alone', async () => {
  const a = replica();
  const b = replica();
  const ids = ['known-d1', 'known-d2', 'known-d3'];
  for (const id of ids) await a.store.append(id, [ev(1)], { expectedVersion: 0 });
  await b.store.append('known-d2', [ev(2)], { expectedVersion: 1 });
  a.statements.length = 0;
  const outcomes = await Promise.allSettled(ids.map((id) => a.store.append(id, [ev(2), ev(3)], { expectedVersion: 1 })));
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(a.statements.every((s) => s === 'known-heads')).toBe(true);
  for (const id of ids) await verifyChain(a.store, id);
  expect((await a.store.readStream('known-d2')).map((e) => e.version)).toEqual([1, 2]);
});

it('stores each event\'s data as the canonical text its link hashed, on both paths', async () => {
  const { store, statements } = replica();
  const id = 'known-e';
  const data = { z: 1, a: { y: [1.5, 'two ✓', null], b: true }, text: 'tab\tline\nquote " \u2028' };
  await store.append(id, [{ type: 'Noted', data }], { expectedVersion: 0 });
  await store.append(id, [{ type: 'Noted', data: { ...data, z: 2 } }], { expectedVersion: 1 });
  expect(statements).toEqual(['function', 'known-heads']);
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const rows = (await admin.query(`SELECT data::text AS text, hash FROM events WHERE stream_id = $1 ORDER BY version`, [id])).rows;
  await admin.end();
  expect(rows.map((r) => r.text)).toEqual([canonicalJson(data), canonicalJson({ ...data, z: 2 })]);
  expect(rows[0].hash).toBe(chainLink('', 1, 'Noted', rows[0].text));
  expect(rows[1].hash).toBe(chainLink(rows[0].hash, 2, 'Noted', rows[1].text));
});
