import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import pg from 'pg';
import request from 'supertest';
import type { App } from 'supertest/types.js';
import { loadConfig, parseApiKeys } from '#platform';
import { createApp } from '../../apps/session-api/src/app.factory.js';
import { LiveHub } from '../../apps/session-api/src/live/live-hub.js';
import { bearer, KEYS, startTestApp, TEST_KEYS_SPEC, TEST_MASTER_KEY, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';
import { pollUntil } from '../support/poll.js';
import { dataOf, openEventStream } from '../support/server-sent-events.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function listen(t: TestApp): Promise<string> {
  await t.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
}

function openLive(url: string) {
  const stream = openEventStream(url, bearer(KEYS.read));
  const versions = () => dataOf<{ version: number }>(stream.events, 'transcript').map((event) => event.version);
  return { ready: stream.ready, versions, ended: stream.ended, close: stream.close };
}

/** A client straight to the test database, as another replica or an operator would connect. */
async function withDatabase<T>(t: TestApp, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: t.database.url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const listenerPids = (client: pg.Client) =>
  client
    .query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    )
    .then((result) => result.rows.map((row) => row.pid));

describe('live streams and shutdown', () => {
  it('app.close() ends the open live streams and finishes promptly', async () => {
    const t = await startTestApp({ CHRONICLE_LIVE_HEARTBEAT_MS: '100' });
    let closed = false;
    try {
      const base = await listen(t);
      await ingestClient(() => t.server).startSession('bye', { createdAt: 1 });
      const live = openLive(`${base}/v1/sessions/bye/live`);
      await live.ready;
      await pollUntil('the first transcript event', live.versions, (v) => v.length === 1);
      expect(t.app.get(LiveHub).openStreamCount()).toBe(1);

      // Promptly: the open stream does not hold the shutdown (a bound for a hang, far above a loaded machine's close).
      const closing = t.app.close().then(() => (closed = true));
      let bound: NodeJS.Timeout | undefined;
      try {
        await Promise.race([closing, new Promise((resolve) => (bound = setTimeout(resolve, 10_000)))]);
      } finally {
        // Cleared: a timer left running keeps Jest's worker from exiting, and Jest then kills it.
        clearTimeout(bound);
      }
      expect(closed).toBe(true);
      // Ended by the server (a clean end of the chunked body), not merely cut off.
      await pollUntil('the server to end the stream', live.ended, Boolean, { timeoutMs: 1000 });
      live.close();
    } finally {
      if (!closed) await t.app.close();
      await t.database.drop();
    }
  });
});

describe('live updates across replicas', () => {
  let t: TestApp;
  let base: string;
  let other: INestApplication | undefined;
  const api = ingestClient(() => t.server);
  beforeAll(async () => {
    t = await startTestApp({ CHRONICLE_PROJECTOR_INTERVAL_MS: '50', CHRONICLE_LIVE_HEARTBEAT_MS: '100' });
    base = await listen(t);
  });
  afterAll(async () => {
    await other?.close();
    await t.close();
  });

  it('a local append produces exactly one change and one SSE event for its version', async () => {
    await api.startSession('once', { createdAt: 1 });
    const changes: number[] = [];
    const off = t.app.get(LiveHub).onAny((sessionId, version) => {
      if (sessionId === 'once') changes.push(version);
    });
    const live = openLive(`${base}/v1/sessions/once/live`);
    try {
      await live.ready;
      await pollUntil('the first transcript event', live.versions, (v) => v.length === 1);
      await api.recordMessages('once', [{ role: 'user', content: 'hi', timestamp: 2 }]);
      // The stream sends the newest version when it renders (a burst of changes may coalesce): wait for
      // version 2 on the wire before making version 3, so the test sees each change once, not a race.
      await pollUntil('the transcript event of version 2', live.versions, (v) => v.length === 2);
      await api.recordMessages('once', [{ role: 'assistant', content: 'ho', timestamp: 3 }]);
      await pollUntil('the transcript event of version 3', live.versions, (v) => v.length === 3);
      // Long enough for the echo of our own NOTIFY to come back over LISTEN.
      await sleep(500);
      expect(live.versions()).toEqual([1, 2, 3]);
      expect(changes).toEqual([2, 3]);
    } finally {
      off();
      live.close();
    }
  });

  it('reconnects the LISTEN connection after its backend is killed, and still relays other replicas', async () => {
    await api.startSession('remote', { createdAt: 1 });
    const live = openLive(`${base}/v1/sessions/remote/live`);
    try {
      await live.ready;
      await pollUntil('the first transcript event', live.versions, (v) => v.length === 1);

      const [before] = await withDatabase(t, listenerPids);
      expect(before).toBeDefined();
      await withDatabase(t, (client) => client.query('SELECT pg_terminate_backend($1)', [before]));
      const after = await withDatabase(t, (client) =>
        pollUntil(
          'a new LISTEN connection',
          () => listenerPids(client),
          (pids) => pids.length === 1 && pids[0] !== before,
        ),
      );
      expect(after).toHaveLength(1);
      expect(after[0]).not.toBe(before);

      // Another replica (a second app on the same database) appends: only its NOTIFY can tell this one.
      const config = loadConfig({ LOG_LEVEL: 'silent', CHRONICLE_RECOVERY_INTERVAL_MS: '0', DATABASE_URL: t.database.url , CHRONICLE_MASTER_KEY: TEST_MASTER_KEY });
      other = await createApp({ config, databaseUrl: t.database.url, keys: parseApiKeys(TEST_KEYS_SPEC) });
      const res = await request(other.getHttpServer() as App)
        .post('/v1/sessions/remote/messages')
        .set(bearer(KEYS.ingest))
        .send({ rows: [{ role: 'user', content: 'from afar', timestamp: 2 }] });
      expect(res.status).toBeLessThan(300);
      expect(await pollUntil('the other replica\'s change on the stream', live.versions, (v) => v.length === 2)).toEqual([1, 2]);
    } finally {
      live.close();
    }
  });
});
