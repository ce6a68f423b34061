import pg from 'pg';
import { canonicalJson, toSessionStreamId } from '#domain';
import { createSessionEventStore, ContinuousAuditor, SessionViews, SnapshotStore } from '#read-models';
import { type EventStore, type LogCursor, START, type StoredEvent } from '#event-store';
import { startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';
import { pollUntil } from '../support/poll.js';
import { portOf, sessionsOnNode } from './support/citus-streams.js';

/**
 * Issue 28: there is no global order across Citus nodes, and every reader of the log follows one position per
 * node, each behind that node's own fence. A transaction held open on worker 1 (its transaction id lower than
 * the ones committed after it there) while worker 2's and worker 1's later appends commit must never be
 * skipped by a reader that moved on meanwhile: the session list (the async projector), the continuous auditor
 * and a page-by-page read of the log each see its event exactly once after it commits.
 */
let t: TestApp;
let pool: pg.Pool;
let store: EventStore;
const api = ingestClient(() => t.server);

beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_PROJECTOR_INTERVAL_MS: '50' });
  pool = new pg.Pool({ connectionString: t.database.url, max: 4 });
  store = await createSessionEventStore(pool);
});
afterAll(async () => {
  await pool?.end();
  await t?.close();
});

const listed = async (): Promise<Map<string, number>> => {
  const res = await api.read('/v1/sessions?q=ooo-&limit=100');
  return new Map((res.body.items ?? []).map((s: { sessionId: string; version: number }) => [s.sessionId, s.version]));
};

/** Every page of the log from `after` as a reader reads it now; the cursor it reached. */
async function readAll(after: LogCursor): Promise<{ events: StoredEvent[]; cursor: LogCursor }> {
  const events: StoredEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await store.readAll({ after: cursor, limit: 3 });
    events.push(...page.events);
    cursor = page.checkpoint;
    if (page.events.length === 0) return { events, cursor };
  }
}

describe('a commit held open on worker 1 while later commits land on both workers', () => {
  it('is read by every reader exactly once, after it commits', async () => {
    const [worker1, worker2] = t.database.workerUrls;
    const [held] = await sessionsOnNode(t.database.url, portOf(worker1), 'ooo-held', 1);
    const laterOn1 = await sessionsOnNode(t.database.url, portOf(worker1), 'ooo-w1', 2);
    const on2 = await sessionsOnNode(t.database.url, portOf(worker2), 'ooo-w2', 2);
    const auditor = new ContinuousAuditor(
      { pool, store, views: new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: 1000 }) },
      { sessionsPerPass: 100 },
    );
    const audited = new Set<string>();
    const auditPass = async () => {
      for (const audit of await auditor.pass()) audited.add(audit.sessionId);
    };

    // A reader of the log, and the two async readers, have read everything there is before the held write.
    let reader = await readAll(START);
    await auditPass();

    // The held append runs on worker 1 itself (a routed append's body, inside a transaction left open).
    const holder = new pg.Client({ connectionString: worker1 });
    await holder.connect();
    await holder.query('BEGIN');
    const data = canonicalJson({ sessionId: held, title: 'held', parentSessionId: null, createdAt: 1 });
    await holder.query(
      `SELECT * FROM chronicle_append_routed($1, ARRAY[$1], ARRAY[0::bigint], ARRAY[1], ARRAY['SessionStarted'], ARRAY[$2], ARRAY['{}'],
                                             ARRAY[0], ARRAY[]::text[], ARRAY[]::text[], ARRAY[]::text[], '[]'::jsonb)`,
      [toSessionStreamId(held), data],
    );
    try {
      for (const sessionId of [...laterOn1, ...on2]) await api.startSession(sessionId, { title: sessionId, createdAt: 2 });

      // Worker 2's sessions are listed while worker 1's are behind its fence (its oldest transaction is open).
      await pollUntil('worker 2 sessions listed', listed, (list) => on2.every((id) => list.has(id)));
      const whileHeld = await listed();
      expect([held, ...laterOn1].filter((id) => whileHeld.has(id))).toEqual([]);
      const page = await readAll(reader.cursor);
      reader = { events: [...reader.events, ...page.events], cursor: page.cursor };
      expect(page.events.map((e) => e.streamId)).toEqual(expect.arrayContaining(on2.map(toSessionStreamId)));
      expect(page.events.filter((e) => [held, ...laterOn1].map(toSessionStreamId).includes(e.streamId))).toEqual([]);
      await auditPass();
      expect([...audited].filter((id) => [held, ...laterOn1].includes(id))).toEqual([]);
    } finally {
      await holder.query('COMMIT');
      await holder.end();
    }

    // After the commit: every reader continues from where it stood and meets the held event, once.
    await pollUntil('every session listed', listed, (list) => [held, ...laterOn1, ...on2].every((id) => list.get(id) === 1));
    const rest = await readAll(reader.cursor);
    const all = [...reader.events, ...rest.events];
    const heldEvents = all.filter((e) => e.streamId === toSessionStreamId(held));
    expect(heldEvents.map((e) => e.version)).toEqual([1]);
    for (const id of [...laterOn1, ...on2]) expect(all.filter((e) => e.streamId === toSessionStreamId(id))).toHaveLength(1);
    await auditPass();
    expect([held, ...laterOn1, ...on2].filter((id) => !audited.has(id))).toEqual([]);
    // The two workers count transactions on their own: their events carry two origins.
    expect(new Set(all.map((e) => e.origin)).size).toBe(2);
  });
});
