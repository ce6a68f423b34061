import pg from 'pg';
import { toSessionStreamId } from '#domain';
import type { EventStore } from '#event-store';
import { createSessionEventStore } from '../../session-event-store.js';
import { createTestDatabase, type TestDatabase } from '../../../../../test/support/database.js';
import { SessionIndexProjector } from '../../session-index/session-index.projector.js';
import { type AuditProgress, auditAll } from './audit-all.js';
import { newViews, newWriter, snapshotStored, writeSession } from '../audit.fixtures.js';

let database: TestDatabase;
let pool: pg.Pool;
let store: EventStore;
const SESSIONS = ['all-1', 'all-2', 'all-3', 'all-4', 'all-5', 'all-6', 'all-7'];

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 6 });
  store = await createSessionEventStore(pool);
  const views = newViews(store, pool);
  const writer = newWriter(store, views);
  for (const sessionId of SESSIONS) await writeSession(writer, sessionId, 3);
  for (const sessionId of SESSIONS) await snapshotStored(pool, sessionId, 3);
  await new SessionIndexProjector(pool, store, views).catchUp();
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

describe('auditing the whole store', () => {
  it('finds exactly the tampered sessions, page by page, reporting progress', async () => {
    await pool.query(`UPDATE session_snapshots SET state = jsonb_set(state::jsonb, '{title}', '"forged"')::json WHERE stream_id = $1`, [
      toSessionStreamId('all-2'),
    ]);
    await pool.query(`UPDATE events SET data = jsonb_set(data::jsonb, '{rows,0,content}', '"edited"') WHERE stream_id = $1 AND version = 3`, [
      toSessionStreamId('all-6'),
    ]);
    const progress: AuditProgress[] = [];
    const report = await auditAll(
      { pool },
      { pageSize: 3, onProgress: (p) => progress.push(p) },
    );
    expect(report.sessions).toBe(7);
    expect(report.eventsReplayed).toBe(7 * 4);
    expect(report.seconds).toBeGreaterThan(0);
    expect(report.mismatches.map((m) => m.sessionId)).toEqual(['all-2', 'all-6']);
    expect(report.mismatches[0].differences).toContainEqual({ path: 'snapshot@3.title', stored: 'forged', replayed: 'Session all-2' });
    expect(report.mismatches[1].chain).toEqual({ ok: false, firstBrokenVersion: 3 });
    expect(progress.map((p) => p.sessionId)).toEqual(SESSIONS);
    expect(progress.at(-1)).toMatchObject({ sessions: 7, total: 7, mismatches: 2, eventsReplayed: 28 });
  });

  it('finds the same in streams longer than a batch, read page by page, and only in streams changed since a time', async () => {
    const paged = await auditAll({ pool }, { batchEvents: 3 });
    expect(paged.eventsReplayed).toBe(7 * 4);
    expect(paged.mismatches.map((m) => m.sessionId)).toEqual(['all-2', 'all-6']);
    expect(paged.mismatches[1].chain).toEqual({ ok: false, firstBrokenVersion: 3 });
    await pool.query(`UPDATE streams SET updated_at = now() - interval '1 day'`);
    await pool.query(`UPDATE streams SET updated_at = now() WHERE stream_id = $1`, [toSessionStreamId('all-6')]);
    const recent = await auditAll({ pool }, { since: new Date(Date.now() - 3_600_000) });
    expect(recent.sessions).toBe(1);
    expect(recent.mismatches.map((m) => m.sessionId)).toEqual(['all-6']);
  });

  it('verifies rows whose stored text is not the canonical one it hashed (written as jsonb, or with whitespace) the slow way', async () => {
    await pool.query(`UPDATE events SET data = data::jsonb::json WHERE stream_id = $1 AND version = 2`, [toSessionStreamId('all-4')]);
    await pool.query(`UPDATE events SET data = ('{' || E'\\n\\t' || substr(data::text, 2))::json WHERE stream_id = $1 AND version = 3`, [
      toSessionStreamId('all-5'),
    ]);
    const stored = await pool.query(`SELECT data::text AS text FROM events WHERE stream_id = ANY($1) AND version IN (2, 3) ORDER BY stream_id, version`, [
      [toSessionStreamId('all-4'), toSessionStreamId('all-5')],
    ]);
    expect(stored.rows[0].text).toMatch(/": /);
    expect(stored.rows[3].text).toMatch(/^\{\n\t"/);
    for (const batchEvents of [5_000, 2]) {
      const report = await auditAll({ pool }, { batchEvents });
      expect(report.eventsReplayed).toBe(7 * 4);
      expect(report.mismatches.map((m) => m.sessionId)).toEqual(['all-2', 'all-6']);
    }
  });

  it('reports a hash edited to hold the packed text\'s separators as a broken link, and goes on', async () => {
    await pool.query(`UPDATE events SET hash = left(hash, 10) || E'\\x1e' || substr(hash, 11) || E'\\x1f' WHERE stream_id = $1 AND version = 2`, [
      toSessionStreamId('all-7'),
    ]);
    const report = await auditAll({ pool });
    expect(report.eventsReplayed).toBe(7 * 4);
    expect(report.mismatches.map((m) => m.sessionId)).toEqual(['all-2', 'all-6', 'all-7']);
    expect(report.mismatches[2].chain).toEqual({ ok: false, firstBrokenVersion: 2 });
  });

  it('reports a type edited to hold a separator as a broken link, and goes on', async () => {
    // The type travels as it is (not as JSON): one holding a separator is written as `?`, which no link hashed.
    await pool.query(`UPDATE events SET type = type || E'\x1f' WHERE stream_id = $1 AND version = 3`, [toSessionStreamId('all-3')]);
    await pool.query(`UPDATE events SET type = E'\x1e' || type WHERE stream_id = $1 AND version = 4`, [toSessionStreamId('all-1')]);
    for (const batchEvents of [5_000, 2]) {
      const report = await auditAll({ pool }, { batchEvents });
      expect(report.eventsReplayed).toBe(7 * 4);
      expect(report.mismatches.map((m) => m.sessionId)).toEqual(['all-1', 'all-2', 'all-3', 'all-6', 'all-7']);
      expect(report.mismatches[0].chain).toEqual({ ok: false, firstBrokenVersion: 4 });
      expect(report.mismatches[2].chain).toEqual({ ok: false, firstBrokenVersion: 3 });
    }
  });

  it('reports a version deleted at a page boundary as broken there, whatever the batch size', async () => {
    await pool.query(`DELETE FROM events WHERE stream_id = $1 AND version = 3`, [toSessionStreamId('all-5')]);
    for (const batchEvents of [5_000, 2, 1]) {
      const report = await auditAll({ pool }, { batchEvents });
      expect(report.eventsReplayed).toBe(7 * 4 - 1);
      expect(report.mismatches.map((m) => m.sessionId)).toEqual(['all-1', 'all-2', 'all-3', 'all-5', 'all-6', 'all-7']);
      expect(report.mismatches[3].chain).toEqual({ ok: false, firstBrokenVersion: 3 });
    }
  });

  it('stops between batches when cancelled, and refuses a batch size that is not a whole number of events', async () => {
    const none = await auditAll({ pool }, { cancelled: () => true });
    expect(none).toMatchObject({ sessions: 0, eventsReplayed: 0, mismatches: [] });
    let batches = 0;
    // Pages of 2 events; asked before the heads, before the first read, then before each batch is handed over: the
    // audit stops after the first stream's first page (the read ahead of it is let finish, unused).
    const partial = await auditAll({ pool }, { batchEvents: 2, cancelled: () => (batches += 1) > 3 });
    expect(partial.sessions).toBe(0);
    expect(partial.eventsReplayed).toBe(2);
    for (const batchEvents of [0, 1.5, -1]) await expect(auditAll({ pool }, { batchEvents })).rejects.toThrow(/batchEvents must be a whole number/);
  });
});
