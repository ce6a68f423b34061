import request from 'supertest';
import { toSessionStreamId } from '#domain';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';
import { pollUntil } from '../support/poll.js';
import { nodePortsOf, onNode, portOf, sessionsOnNode } from './support/citus-streams.js';

/**
 * A shard group moved from worker 1 to worker 2 (`citus_move_shard_placement`) while the service runs: appends to
 * its sessions go on (the routed append finds them where they are now; a batch routed by a stale node is refused
 * there and sent again), the readers of the log keep every event (the moved rows keep their origin, worker 1's,
 * and are read with it), and the moved sessions audit clean.
 */
let t: TestApp;
const api = ingestClient(() => t.server);

beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_PROJECTOR_INTERVAL_MS: '50' });
});
afterAll(async () => {
  await t?.close();
});

const token = (id: string, seq: number) => api.postJournal(id, `run-${id}`, [{ seq, event: 'token', payload: { text: ` ${seq}` }, createdAt: 3 }]);

describe('a shard group moved to the other worker under traffic', () => {
  it('keeps every append, every reader and the audit whole', async () => {
    const [worker1, worker2] = t.database.workerUrls;
    const moving = await sessionsOnNode(t.database.url, portOf(worker1), 'move', 12);
    const staying = await sessionsOnNode(t.database.url, portOf(worker2), 'stay', 4);
    for (const id of [...moving, ...staying]) {
      await api.startSession(id, { title: id, createdAt: 1 });
      await api.submit(id, { runId: `run-${id}`, text: 'go', submittedAt: 2 });
      await token(id, 1);
    }
    // The shard group of the first session moves, with every colocated table; others of worker 1 may share it.
    const shard = await onNode(t.database.url, async (c) => {
      const { rows } = await c.query(`SELECT get_shard_id_for_distribution_column('streams', $1::text) AS shard`, [toSessionStreamId(moving[0])]);
      await c.query(
        `SELECT citus_move_shard_placement($1::bigint, '127.0.0.1', $2::int, '127.0.0.1', $3::int, shard_transfer_mode => 'block_writes')`,
        [rows[0].shard, portOf(worker1), portOf(worker2)],
      );
      return rows[0].shard as string;
    });
    const after = await nodePortsOf(t.database.url, [toSessionStreamId(moving[0])]);
    expect(after.get(toSessionStreamId(moving[0]))).toBe(portOf(worker2));
    expect(shard).toBeDefined();

    // Appends to all of them at once: batches mix moved and unmoved sessions the service still routes to worker 1.
    for (let seq = 2; seq <= 4; seq += 1) await Promise.all([...moving, ...staying].map((id) => token(id, seq)));

    const listed = async () => {
      const res = await request(t.server).get('/v1/sessions?limit=100').set(bearer(KEYS.read));
      return new Map((res.body.items as { sessionId: string; version: number }[]).map((s) => [s.sessionId, s.version]));
    };
    await pollUntil('every session listed at version 6', listed, (list) => [...moving, ...staying].every((id) => list.get(id) === 6));
    for (const id of [moving[0], staying[0]]) {
      const audit = await request(t.server).post(`/v1/sessions/${id}/audit`).set(bearer(KEYS.admin)).send({});
      expect(audit.status).toBe(200);
      expect(audit.body).toMatchObject({ match: true });
    }
    const events = (await request(t.server).get(`/v1/sessions/${moving[0]}/events?limit=100`).set(bearer(KEYS.read))).body.items as { version: number }[];
    expect(events.map((e) => e.version)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
