import pg from 'pg';
import { bearer, KEYS } from '../support/app.js';
import { pollUntil } from '../support/poll.js';
import { dataOf, openEventStream } from '../support/server-sent-events.js';
import { stopTestCluster, type TestCluster } from '../support/test-postgres.mjs';
import { startOwnDatabase } from './support/own-cluster.js';
import { ServiceUnderTest } from './support/service.js';
import { SilentProxy } from './support/silent-proxy.js';

/**
 * A database host that stops answering without refusing (a partition, a host gone without a reset): the built
 * service reaches PostgreSQL through a proxy that goes silent. A request that needs a connection waits at most
 * CHRONICLE_DB_CONNECT_TIMEOUT_MS for one, a statement sent on a connection that went silent at most
 * CHRONICLE_DB_QUERY_TIMEOUT_MS for its answer; either way it is answered 503 with Retry-After, never held;
 * nothing it refused is stored, and once the host answers again the retried write is stored once.
 */
const CONNECT_TIMEOUT_MS = 1500;
const QUERY_TIMEOUT_MS = 2000;
/** The live heartbeat's period, and so how often the LISTEN connection is checked. */
const HEARTBEAT_MS = 500;
/** The bound a request must be answered within: the connect timeout, with room for a loaded machine. */
const ANSWERED_WITHIN_MS = 8000;

let cluster: TestCluster;
let proxy: SilentProxy;
let service: ServiceUnderTest;
let url: string;
beforeAll(async () => {
  ({ cluster, url } = await startOwnDatabase('partition'));
  proxy = await SilentProxy.start({ host: '127.0.0.1', port: cluster.port });
  const viaProxy = url.replace(`:${cluster.port}/`, `:${proxy.port}/`);
  service = await ServiceUnderTest.start(viaProxy, {
    CHRONICLE_DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    CHRONICLE_DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
    CHRONICLE_LIVE_HEARTBEAT_MS: String(HEARTBEAT_MS),
    CHRONICLE_ENCRYPTION: 'off',
  });
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await proxy?.close();
  if (cluster) stopTestCluster(cluster);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const json = { 'content-type': 'application/json' };

/** A request answered in time (its status, Retry-After and how long it took), or `hang` when it was not. */
async function timed(path: string, init: RequestInit = {}): Promise<{ status: number | 'hang'; retryAfter: string | null; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${service.base}${path}`, { ...init, signal: AbortSignal.timeout(ANSWERED_WITHIN_MS) }).catch(() => null);
  await res?.text();
  return { status: res?.status ?? 'hang', retryAfter: res?.headers.get('retry-after') ?? null, ms: Date.now() - started };
}

const token = (seq: number) => ({
  method: 'POST',
  headers: { ...bearer(KEYS.ingest), ...json },
  body: JSON.stringify({ events: [{ seq, event: 'token', payload: { text: `t${seq} ` }, createdAt: 1_800_000_000 + seq }] }),
});

describe('when the database host stops answering', () => {
  it('answers each request within the connect timeout (503, Retry-After), then stores the retried write once', async () => {
    const start = await timed('/v1/sessions', { method: 'POST', headers: { ...bearer(KEYS.ingest), ...json }, body: JSON.stringify({ sessionId: 'cut-off', title: 'Cut off' }) });
    expect(start.status).toBe(201);
    const submitted = await timed('/v1/sessions/cut-off/submissions', {
      method: 'POST',
      headers: { ...bearer(KEYS.ingest), ...json },
      body: JSON.stringify({ runId: 'run-1', text: 'hello?', submittedAt: 1_800_000_000 }),
    });
    expect(submitted.status).toBe(200);
    expect((await timed('/v1/sessions/cut-off/runs/run-1/journal', token(1))).status).toBe(200);

    proxy.silence();
    const write = await timed('/v1/sessions/cut-off/runs/run-1/journal', token(2));
    const ready = await timed('/health/ready');
    const read = await timed('/v1/sessions/cut-off/events', { headers: bearer(KEYS.read) });
    // Refused for want of a connection, in time: the write with Retry-After; the readiness probe says not ready;
    // the read needs the store too.
    expect(write).toMatchObject({ status: 503, retryAfter: expect.any(String) });
    expect(ready.status).toBe(503);
    expect(read).toMatchObject({ status: 503, retryAfter: expect.any(String) });
    for (const answer of [write, ready, read]) expect(answer.ms).toBeLessThan(ANSWERED_WITHIN_MS);

    await resumeAndResend(2);
    expect(await storedSeqs()).toEqual([1, 2]);
  }, 90_000);

  it('answers a write whose connection went silent under it within the statement timeout (503), then stores it once', async () => {
    expect((await timed('/v1/sessions/cut-off/runs/run-1/journal', token(3))).status).toBe(200);
    // The pool's connections stay open, and nothing comes back on them.
    proxy.freeze();
    const write = await timed('/v1/sessions/cut-off/runs/run-1/journal', token(4));
    expect(write).toMatchObject({ status: 503, retryAfter: expect.any(String) });
    expect(write.ms).toBeLessThan(ANSWERED_WITHIN_MS);
    await resumeAndResend(4);
    expect(await storedSeqs()).toEqual([1, 2, 3, 4]);
  }, 90_000);
});

describe('when the LISTEN connection goes silent and the partition heals', () => {
  it("finds it lost, listens again, and a live watcher hears another replica's append", async () => {
    // Another replica, straight to the database: its appends reach the first one only through LISTEN.
    const other = await ServiceUnderTest.start(url, { CHRONICLE_ENCRYPTION: 'off' });
    const started = await timed('/v1/sessions', { method: 'POST', headers: { ...bearer(KEYS.ingest), ...json }, body: JSON.stringify({ sessionId: 'watched' }) });
    expect(started.status).toBe(201);
    const watch = openEventStream(`${service.base}/v1/sessions/watched/live`, bearer(KEYS.read));
    try {
      const versions = () => dataOf<{ version: number }>(watch.events, 'transcript').map((event) => event.version);
      await watch.ready;
      await pollUntil('the first transcript event', versions, (v) => v.length >= 1, { timeoutMs: 10_000 });

      // Every connection of the first replica goes silent, its LISTEN too; then new connections go through again
      // while the frozen ones stay dead (no error, no end: only a statement on them can tell).
      proxy.freeze();
      await pause(HEARTBEAT_MS + QUERY_TIMEOUT_MS + 1000);
      proxy.heal();

      const submitted = await fetch(`${other.base}/v1/sessions/watched/submissions`, {
        method: 'POST',
        headers: { ...bearer(KEYS.ingest), ...json },
        body: JSON.stringify({ runId: 'run-w', text: 'are you there?', submittedAt: 1_800_000_100 }),
      });
      expect(submitted.status).toBe(200);
      const version = ((await submitted.json()) as { version: number }).version;
      await pollUntil("the other replica's append on the live stream", versions, (v) => v.includes(version), { timeoutMs: 15_000 });
    } finally {
      watch.close();
      await other.stop();
      proxy.resume();
    }
  }, 90_000);
});

/** The host answers again: once the service is ready, the write it refused is sent again and acknowledged. */
async function resumeAndResend(seq: number): Promise<void> {
  proxy.resume();
  const deadline = Date.now() + 30_000;
  while ((await timed('/health/ready')).status !== 200 && Date.now() < deadline) await pause(100);
  expect((await timed('/health/ready')).status).toBe(200);
  expect((await timed('/v1/sessions/cut-off/runs/run-1/journal', token(seq))).status).toBe(200);
}

/** The journal seqs stored for the session, read from the database itself. */
async function storedSeqs(): Promise<number[]> {
  const direct = new pg.Client({ connectionString: url });
  await direct.connect();
  try {
    const { rows } = await direct.query<{ seq: number }>(
      `SELECT (data->>'seq')::int AS seq FROM events WHERE stream_id = $1 AND type = 'JournalEventRecorded' ORDER BY version`,
      ['session-cut-off'],
    );
    return rows.map((row) => row.seq);
  } finally {
    await direct.end();
  }
}
