import { startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';
import { pollUntil } from '../support/poll.js';
import { nodePortsOf, portOf } from './support/citus-streams.js';

/**
 * Issue 28: 400 sessions written by 16 concurrent clients on a coordinator and two workers are all in the
 * session list at their head versions within 30 s, and their events sit on both workers. Group commit splits
 * each batch by the node that holds each session; the tier refuses any per-session statement that is not on
 * one shard.
 */
const SESSIONS = 400;
const CLIENTS = 16;
let t: TestApp;
const api = ingestClient(() => t.server);

beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_PROJECTOR_INTERVAL_MS: '100' });
});
afterAll(async () => {
  await t?.close();
});

/** Every page of the list (100 a page). */
async function listAll(): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  let cursor: string | null = null;
  do {
    const res = await api.read(`/v1/sessions?q=load-&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    if (res.status !== 200) throw new Error(`GET /v1/sessions answered ${res.status}: ${res.text}`);
    for (const item of res.body.items as { sessionId: string; version: number }[]) seen.set(item.sessionId, item.version);
    cursor = res.body.nextCursor;
  } while (cursor);
  return seen;
}

describe('400 sessions written by 16 clients at once', () => {
  it('are all listed at their head versions within 30 s, their events on both workers', async () => {
    const ids = Array.from({ length: SESSIONS }, (_, i) => `load-${i}`);
    // Each session: started, a turn submitted, and a journal token: three appends, head version 3.
    const written = new Map<string, number>();
    const queue = [...ids];
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          await api.startSession(id, { title: `Load ${id}`, createdAt: 1 });
          await api.submit(id, { runId: `run-${id}`, text: 'go', submittedAt: 2 });
          const res = await api.postJournal(id, `run-${id}`, [{ seq: 1, event: 'token', payload: { text: 'hi' }, createdAt: 3 }]);
          written.set(id, res.body.version);
        }
      }),
    );
    expect([...written.values()].every((version) => version === 3)).toBe(true);

    const listed = await pollUntil('all 400 sessions listed at version 3', listAll, (list) => ids.every((id) => list.get(id) === 3), {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    expect(listed.size).toBe(SESSIONS);

    const ports = await nodePortsOf(t.database.url, ids.map((id) => `session-${id}`));
    const perWorker = t.database.workerUrls.map((url) => [...ports.values()].filter((port) => port === portOf(url)).length);
    expect(perWorker.every((count) => count > 0)).toBe(true);
    expect(perWorker.reduce((a, b) => a + b, 0)).toBe(SESSIONS);
  });
});
