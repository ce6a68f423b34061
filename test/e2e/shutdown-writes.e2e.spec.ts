import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { WritesInFlight } from '#platform';
import { KEYS, startTestApp, type TestApp } from '../support/app.js';
import { pollUntil } from '../support/poll.js';

/**
 * Shutdown (SIGTERM, `app.close()`) answers every HTTP write it has begun before it closes the sockets and ends
 * the database pool: writes held up in their commit when it starts are answered 200 once the commit goes through,
 * not reset mid-request (and not failed on an ended pool); a request that arrives once it has begun is answered 503
 * `SHUTTING_DOWN` and does nothing.
 */
describe('shutdown with writes under way', () => {
  let t: TestApp;
  afterAll(async () => {
    await t?.database.drop();
  });

  it('answers each write it began, refuses what arrives after it began, then closes', async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${KEYS.ingest}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const T = Math.floor(Date.now() / 1000);
    const ids = Array.from({ length: 6 }, (_, i) => `closing-${i}`);
    for (const id of ids) {
      expect((await post('/v1/sessions', { sessionId: id, createdAt: T })).status).toBe(201);
      expect((await post(`/v1/sessions/${id}/submissions`, { runId: 'run-1', text: 'go', submittedAt: T })).status).toBe(200);
    }
    // An operator's lock holds every append in its commit.
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE streams IN EXCLUSIVE MODE');
      const writes = ids.map((id) =>
        post(`/v1/sessions/${id}/runs/run-1/journal`, { events: [{ seq: 1, event: 'token', payload: { text: 'held' }, createdAt: T }] }).then(
          (answer) => answer.status,
          (error: Error) => `failed: ${(error.cause as Error | undefined)?.message ?? error.message}`,
        ),
      );
      await pollUntil(
        'an append waiting on the lock',
        async () => (await holder.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`)).rows[0].n,
        (n) => n > 0,
        { timeoutMs: 5000 },
      );
      // Every write taken by the service before shutdown begins (one still on its way would be refused, as it should).
      const inFlight = t.app.get(WritesInFlight);
      await pollUntil('every write taken', () => inFlight.size, (n) => n === ids.length, { timeoutMs: 5000 });
      const closing = t.app.close();
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Shutdown has begun: whatever arrives now is answered 503 at once, its connection closed, nothing done (it
      // had been taken, and a write held in the same commit, so writers that kept sending held the drain open).
      const late = await Promise.all([
        post(`/v1/sessions/${ids[0]}/runs/run-1/journal`, { events: [{ seq: 2, event: 'token', payload: { text: 'late' }, createdAt: T }] }),
        fetch(`${base}/v1/sessions/${ids[0]}`, { headers: { Authorization: `Bearer ${KEYS.read}` } }),
        fetch(`${base}/health/ready`),
      ]);
      for (const answer of late) {
        expect({ status: answer.status, type: answer.headers.get('content-type'), retry: answer.headers.get('retry-after'), connection: answer.headers.get('connection') }).toEqual({
          status: 503,
          type: 'application/problem+json; charset=utf-8',
          retry: '1',
          connection: 'close',
        });
        expect(await answer.json()).toMatchObject({ status: 503, code: 'SHUTTING_DOWN' });
      }
      await holder.query('COMMIT');
      expect(await Promise.all(writes)).toEqual(ids.map(() => 200));
      await closing;
    } finally {
      await holder.end();
    }
    const stored = new pg.Client({ connectionString: t.database.url });
    await stored.connect();
    try {
      const { rows } = await stored.query(`SELECT count(*)::int AS n FROM events WHERE type = 'JournalEventRecorded'`);
      expect(rows[0].n).toBe(ids.length);
    } finally {
      await stored.end();
    }
  });
});
