import pg from 'pg';
import { toSessionStreamId } from '#domain';
import type { EventStore, SessionKeyring } from '#event-store';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { testKeyring } from '../../../test/support/master-key.js';
import { auditAll } from './audit/store/audit-all.js';
import { auditSession } from './audit/session-audit.js';
import { exchange, newViews, newWriter, startedEvent } from './audit/audit.fixtures.js';
import { createSessionEventStore } from './session-event-store.js';

/**
 * An append's consecutive events with content are sealed as one run (content-seal.ts): a read that starts or ends
 * inside a run reaches for the rest of it, opens it with one call and answers only what it was asked.
 */
let database: TestDatabase;
let pool: pg.Pool;
let keyring: SessionKeyring;
let store: EventStore;
const SESSION = 'runs-1';
const STREAM = toSessionStreamId(SESSION);
// Version 1: the start, alone; 2–6: five exchanges in one append (a run); 7: one more, alone.
const written = [startedEvent(SESSION, 'Runs'), ...[1, 2, 3, 4, 5, 6].map(exchange)];
const dataAt = (version: number) => written[version - 1].data;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 6 });
  keyring = await testKeyring(database.url);
  store = await createSessionEventStore(pool, { keyring });
  const writer = newWriter(store, newViews(store, pool));
  await writer.write(SESSION, () => ({ events: written.slice(0, 1) }));
  await writer.write(SESSION, () => ({ events: written.slice(1, 6) }));
  await writer.write(SESSION, () => ({ events: written.slice(6) }));
  // A second session after it, so pages of the log hold more than one stream.
  await writer.write('runs-2', () => ({ events: [startedEvent('runs-2', 'Two'), exchange(1), exchange(2)] }));
});
afterAll(async () => {
  await keyring.close();
  await pool.end();
  await database.drop();
});

describe('sealed runs in the store', () => {
  it('stores the five exchanges as one run, the lone events as before, and no content in the clear', async () => {
    const { rows } = await pool.query<{ version: string; data: { sealed: string } }>('SELECT version, data FROM events WHERE stream_id = $1 ORDER BY version', [STREAM]);
    const formOf = (sealed: string) => (sealed.startsWith('2:') ? sealed.slice(0, sealed.indexOf(':', 2) + 1) : sealed.slice(0, 2));
    expect(rows.map((row) => formOf(row.data.sealed))).toEqual(['1:', '2:0/5:', '2:1/5:', '2:2/5:', '2:3/5:', '2:4/5:', '1:']);
    expect(JSON.stringify(rows)).not.toMatch(/question|answer|Runs/);
  });

  it('answers a read starting, ending or lying inside the run with exactly the events asked for', async () => {
    for (const [from, to] of [[4, undefined], [3, 4], [5, 5], [1, 2], [6, 7], [2, 6]] as const) {
      const events = await store.readStream(STREAM, { from, to });
      const last = to ?? written.length;
      expect(events.map((e) => e.version)).toEqual(Array.from({ length: last - from + 1 }, (_, i) => from + i));
      expect(events.map((e) => e.data)).toEqual(events.map((e) => dataAt(e.version)));
      const data = await store.readStreamData(STREAM, { from, to });
      expect(data.map((e) => [e.version, e.data])).toEqual(events.map((e) => [e.version, dataAt(e.version)]));
    }
  });

  it('reads the log a page at a time, pages cutting the run, with every event as written', async () => {
    const seen = new Map<number, unknown>();
    let after;
    for (let pages = 0; pages < 50; pages += 1) {
      const page = await store.readAll({ after, limit: 2 });
      for (const event of page.events) if (event.streamId === STREAM) seen.set(event.version, event.data);
      after = page.checkpoint;
      if (page.events.length === 0) break;
    }
    expect([...seen.keys()]).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const [version, data] of seen) expect(data).toEqual(dataAt(version));
  });

  it('passes the whole-store audit with runs cut across its batches, and reports an edited member as a broken chain', async () => {
    for (const batchEvents of [2, 3, 5_000]) {
      const report = await auditAll({ pool, keyring }, { workers: 0, batchEvents });
      expect(report).toMatchObject({ sessions: 2, eventsReplayed: 10, mismatches: [] });
    }
    const { rows } = await pool.query<{ sealed: string }>(`SELECT data->>'sealed' AS sealed FROM events WHERE stream_id = $1 AND version = 4`, [STREAM]);
    const flipped = rows[0].sealed.replace(/:([A-Za-z0-9+/])/, (_, c: string) => `:${c === 'A' ? 'B' : 'A'}`);
    await pool.query(`UPDATE events SET data = jsonb_set(data::jsonb, '{sealed}', to_jsonb($2::text))::json WHERE stream_id = $1 AND version = 4`, [STREAM, flipped]);
    const report = await auditAll({ pool, keyring }, { workers: 0, batchEvents: 3 });
    expect(report.mismatches.map((m) => [m.sessionId, m.chain])).toEqual([[SESSION, { ok: false, firstBrokenVersion: 4 }]]);
    // Read through the store, the edited run reads as erased content, whole; the events around it as written.
    const events = await store.readStream(STREAM, { from: 3, to: 7 });
    expect(events.map((e) => (e.data as { rows: unknown[] }).rows.length)).toEqual([0, 0, 0, 0, 2]);
  });

  it('reads a position edited to claim members the stream lacks as erased, and the audits report the break', async () => {
    // runs-2: the start and two exchanges, one run of 3. Its last member now claims a run of 5, its first that
    // it is a later member: each read reaches for what the positions say, finds nothing, and reads them as erased.
    const other = toSessionStreamId('runs-2');
    const relabel = async (version: number, position: string) => {
      const { rows } = await pool.query<{ sealed: string }>(`SELECT data->>'sealed' AS sealed FROM events WHERE stream_id = $1 AND version = $2`, [other, version]);
      const edited = position + rows[0].sealed.slice(rows[0].sealed.indexOf(':', 2) + 1);
      await pool.query(`UPDATE events SET data = jsonb_set(data::jsonb, '{sealed}', to_jsonb($3::text))::json WHERE stream_id = $1 AND version = $2`, [other, version, edited]);
    };
    await relabel(3, '2:2/5:');
    await relabel(1, '2:1/3:');
    const events = await store.readStream(other);
    expect(events.map((e) => e.version)).toEqual([1, 2, 3]);
    expect((events[0].data as { title: string | null }).title).toBeNull();
    expect(events.slice(1).map((e) => (e.data as { rows: unknown[] }).rows)).toEqual([[], []]);
    const page = await store.readAll({ limit: 1_000 });
    expect(page.events.filter((e) => e.streamId === other)).toHaveLength(3);
    const views = newViews(store, pool);
    expect((await auditSession({ pool, store, views }, 'runs-2')).chain).toEqual({ ok: false, firstBrokenVersion: 1 });
    const report = await auditAll({ pool, keyring }, { workers: 0, batchEvents: 2 });
    expect(report.mismatches.find((m) => m.sessionId === 'runs-2')?.chain).toEqual({ ok: false, firstBrokenVersion: 1 });
  });
});
