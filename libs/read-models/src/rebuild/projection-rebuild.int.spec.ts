import pg from 'pg';
import { toSessionStreamId } from '#domain';
import { cursorPassed, type EventStore, queryAcrossSessions } from '#event-store';
import { createSessionEventStore } from '../session-event-store.js';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.js';
import { auditAll } from '../audit/store/audit-all.js';
import { exchange, newViews, newWriter, snapshotStored, writeSession } from '../audit/audit.fixtures.js';
import { readCheckpoint } from '../projection-checkpoints.js';
import { SessionIndexProjector } from '../session-index/session-index.projector.js';
import { listSessions } from '../session-index/session-list.query.js';
import { SessionViews } from '../session-views.js';
import { SnapshotStore } from '../snapshot-store.js';
import { testKeyring } from '../../../../test/support/master-key.js';
import { ProjectionNotFoundError, RebuildInProgressError, rebuildProjection } from './projection-rebuild.js';

let database: TestDatabase;
let pool: pg.Pool;
let store: EventStore;
let views: SessionViews;
let projector: SessionIndexProjector;
const writer = () => newWriter(store, views);

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 10 });
  store = await createSessionEventStore(pool);
  views = newViews(store, pool);
  projector = new SessionIndexProjector(pool, store, views);
  for (let i = 1; i <= 12; i += 1) await writeSession(writer(), `rb-${String(i).padStart(2, '0')}`, i % 4);
  await projector.catchUp();
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

const indexRows = async () =>
  (await queryAcrossSessions(pool, { text: `SELECT * FROM session_index ORDER BY session_id` })).rows.map(({ updated_at: _, ...row }) => row);
const indexNames = async (table: string) =>
  (await pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`, [table])).rows.map((r) => r.indexname);
const tableExists = async (name: string) => (await pool.query(`SELECT to_regclass($1) AS t`, [name])).rows[0].t !== null;

/** A rebuild held between its fill and its swap until `release` is called. */
function heldRebuild(name = 'session_index') {
  let release!: () => void;
  let reached!: () => void;
  const atSwap = new Promise<void>((resolve) => (reached = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  const done = rebuildProjection({ pool, store }, name, {
    pageSize: 7,
    beforeSwap: async () => {
      reached();
      await gate;
    },
  });
  return { atSwap, release, done };
}

describe('rebuilding session_index', () => {
  it('produces the same rows as the live projector, under the same table and index names', async () => {
    const before = await indexRows();
    const names = await indexNames('session_index');
    await pool.query(`UPDATE session_index SET message_count = 1000 WHERE stream_id = 'session-rb-03'`);
    const planned: number[] = [];
    const result = await rebuildProjection({ pool, store }, 'session_index', { pageSize: 5, onProgress: (p) => planned.push(p.eventsToReplay) });
    expect(result).toMatchObject({ name: 'session_index', rows: 12, eventsReplayed: 30 });
    // Progress knows the whole log from its first report.
    expect(new Set(planned)).toEqual(new Set([30]));
    expect(await indexRows()).toEqual(before);
    expect(await indexNames('session_index')).toEqual(names);
    expect(await tableExists('session_index_next')).toBe(false);
    expect(await tableExists('session_index_old')).toBe(false);
    if (database.engine === 'citus') {
      // Distributed as before, colocated with the streams (a plain CREATE TABLE … LIKE would be the coordinator's alone).
      const { rows } = await pool.query(
        `SELECT citus_table_type, distribution_column, colocation_id = (SELECT colocation_id FROM citus_tables WHERE table_name = 'streams'::regclass) AS colocated
           FROM citus_tables WHERE table_name = 'session_index'::regclass`,
      );
      expect(rows).toEqual([{ citus_table_type: 'distributed', distribution_column: 'stream_id', colocated: true }]);
    }
  });

  it('keeps reads answering throughout, catches up events appended meanwhile, and moves the checkpoint', async () => {
    const rebuild = heldRebuild();
    let reads = 0;
    let failures = 0;
    let reading = true;
    const loop = (async () => {
      while (reading) {
        try {
          const page = await listSessions(pool, { limit: 200 });
          if (page.items.length >= 12) reads += 1;
        } catch {
          failures += 1;
        }
      }
    })();
    await rebuild.atSwap;
    await writeSession(writer(), 'rb-late', 2);
    await writer().write('rb-01', () => ({ events: [exchange(9)] }));
    const readsBeforeSwap = reads;
    rebuild.release();
    await rebuild.done;
    await new Promise((resolve) => setTimeout(resolve, 50));
    reading = false;
    await loop;
    expect(failures).toBe(0);
    expect(readsBeforeSwap).toBeGreaterThan(0);
    expect(reads).toBeGreaterThan(readsBeforeSwap);
    const rows = await indexRows();
    expect(rows.find((r) => r.session_id === 'rb-late')).toMatchObject({ version: '3', message_count: 4 });
    expect(rows.find((r) => r.session_id === 'rb-01')).toMatchObject({ version: '3' });
    const last = (await store.readStream(toSessionStreamId('rb-01'))).at(-1);
    const client = await pool.connect();
    const checkpoint = await readCheckpoint(client, 'session_index').finally(() => client.release());
    expect(last && cursorPassed(checkpoint, last)).toBe(true);
  });

  it('lets the live projector and the list keep working on the swapped table', async () => {
    await writer().write('rb-02', () => ({ events: [exchange(7)] }));
    await projector.catchUp();
    const row = (await indexRows()).find((r) => r.session_id === 'rb-02');
    expect(row).toMatchObject({ version: '4', message_count: 6 });
    expect((await listSessions(pool, { limit: 1 })).items).toHaveLength(1);
    expect((await auditAll({ pool })).mismatches).toEqual([]);
  });

  it('runs once when two replicas ask at once', async () => {
    const first = heldRebuild();
    await first.atSwap;
    await expect(rebuildProjection({ pool, store }, 'session_index')).rejects.toBeInstanceOf(RebuildInProgressError);
    first.release();
    await expect(first.done).resolves.toMatchObject({ name: 'session_index' });
    await expect(rebuildProjection({ pool, store }, 'session_index')).resolves.toMatchObject({ name: 'session_index' });
  });

  it('refuses a projection it does not know', async () => {
    await expect(rebuildProjection({ pool, store }, 'session_nonsense')).rejects.toBeInstanceOf(ProjectionNotFoundError);
  });
});

describe('rebuilding session_snapshots', () => {
  it('folds every stored snapshot again from the events, so a tampered one audits clean afterwards', async () => {
    await writeSession(writer(), 'rb-snap', 4);
    await snapshotStored(pool, 'rb-snap', 3);
    await pool.query(`UPDATE session_snapshots SET state = jsonb_set(state::jsonb, '{title}', '"forged"')::json WHERE stream_id = $1`, [
      toSessionStreamId('rb-snap'),
    ]);
    await projector.catchUp();
    const deps = () => ({ pool, store, views: newViews(store, pool) });
    expect((await auditAll(deps())).mismatches.map((m) => m.sessionId)).toEqual(['rb-snap']);
    const versions = async () =>
      (await queryAcrossSessions(pool, { text: `SELECT stream_id, version FROM session_snapshots ORDER BY 1, 2` })).rows;
    const before = await versions();
    const lastPerStream = new Map<string, number>();
    for (const row of before) lastPerStream.set(String(row.stream_id), Math.max(lastPerStream.get(String(row.stream_id)) ?? 0, Number(row.version)));
    const toReplay = [...lastPerStream.values()].reduce((sum, last) => sum + last, 0);
    const reports: { eventsToReplay: number; eventsReplayed: number }[] = [];
    const result = await rebuildProjection({ pool, store }, 'session_snapshots', { pageSize: 2, onProgress: (p) => reports.push(p) });
    expect(result.rows).toBe(before.length);
    // Progress counts what this rebuild replays (each stream up to its last snapshot), not the whole log.
    expect(reports.map((r) => r.eventsToReplay)).toEqual(reports.map(() => toReplay));
    expect(reports.at(-1)!.eventsReplayed).toBe(toReplay);
    expect(await versions()).toEqual(before);
    expect((await auditAll(deps())).mismatches).toEqual([]);
  });
});

describe('rebuilding session_snapshots of sessions sealed at rest', () => {
  it('seals each rebuilt snapshot with its session’s data key, as a live one is: no content in the clear', async () => {
    const keyring = await testKeyring(database.url);
    try {
      const sealedStore = await createSessionEventStore(pool, { keyring });
      const sealedViews = new SessionViews(sealedStore, new SnapshotStore(pool, keyring), { snapshotEvery: 2, idleSnapshotMs: 0 });
      await writeSession(newWriter(sealedStore, sealedViews), 'rb-sealed', 3);
      await snapshotStored(pool, 'rb-sealed', 2);
      const stored = async () =>
        (await pool.query<{ state: string }>(`SELECT state::text AS state FROM session_snapshots WHERE stream_id = $1`, [toSessionStreamId('rb-sealed')])).rows.map((row) => row.state);
      const before = await stored();
      expect(before.length).toBeGreaterThan(0);
      expect(before.every((state) => state.startsWith('{"sealed":') && !state.includes('Session rb-sealed'))).toBe(true);
      const rebuilt = await rebuildProjection({ pool, store: sealedStore, keys: keyring }, 'session_snapshots', { pageSize: 5 });
      expect(rebuilt.rows).toBeGreaterThan(0);
      // Every snapshot of the session now stored (the rebuilt ones; one the live writer may still have been saving
      // is sealed by it), sealed.
      const after = await stored();
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((state) => state.startsWith('{"sealed":') && !state.includes('Session rb-sealed'))).toBe(true);
      // And they open to the states a fold of the events gives (the cold read folds from them).
      const cold = new SessionViews(sealedStore, new SnapshotStore(pool, keyring), { snapshotEvery: 2, idleSnapshotMs: 0 });
      expect((await cold.load('rb-sealed')).state.title).toBe('Session rb-sealed');
      expect((await auditAll({ pool, keyring })).mismatches.filter((m) => m.sessionId === 'rb-sealed')).toEqual([]);
    } finally {
      await keyring.close();
    }
  });
});
