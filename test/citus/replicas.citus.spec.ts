import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { App } from 'supertest/types.js';
import { keystoreUrlFor } from '#event-store';
import { loadConfig, parseApiKeys, runMigrations } from '#platform';
import { createApp } from '../../apps/session-api/src/app.factory.js';
import { bearer, KEYS, TEST_KEYS_SPEC, TEST_MASTER_KEY } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { pollUntil } from '../support/poll.js';
import { dataOf, openEventStream } from '../support/server-sent-events.js';
import { portOf, sessionsOnNode } from './support/citus-streams.js';

/**
 * Issue 28: stateless replicas may connect to any node. Three replicas, one connected to each node (the
 * coordinator, each worker): what one writes, the others read at once (read-your-writes: a read folds up to the stream's current version on its
 * shard), lists, and tells its `/live` watchers, whichever worker holds the session (an append notifies on the
 * worker that ran it; each replica listens on every node).
 */
let database: TestDatabase;
const replicas: NestFastifyApplication[] = [];
const base: string[] = [];

async function replicaOn(url: string): Promise<NestFastifyApplication> {
  // Every replica shares one key store (README "Scaling out"): here the coordinator's, whatever node it talks to.
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    CHRONICLE_RECOVERY_INTERVAL_MS: '0',
    CHRONICLE_PROJECTOR_INTERVAL_MS: '50',
    DATABASE_URL: url,
    CHRONICLE_MASTER_KEY: TEST_MASTER_KEY,
    CHRONICLE_KEYSTORE_URL: keystoreUrlFor(database.url),
  });
  const app = await createApp({ config, databaseUrl: url, keys: parseApiKeys(TEST_KEYS_SPEC) });
  await app.listen(0, '127.0.0.1');
  return app;
}

beforeAll(async () => {
  database = await createTestDatabase();
  for (const url of [...database.workerUrls, database.url]) {
    const app = await replicaOn(url);
    replicas.push(app);
    base.push(`http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`);
  }
});
afterAll(async () => {
  for (const app of replicas) await app.close();
  await database?.drop();
});

const server = (i: number) => replicas[i].getHttpServer() as App;
const post = (i: number, path: string, body: object) => request(server(i)).post(path).set(bearer(KEYS.ingest)).send(body);
const get = (i: number, path: string) => request(server(i)).get(path).set(bearer(KEYS.read));

describe('replicas connected to the workers and the coordinator', () => {
  it('read each other’s writes at once, list them, and tell their live watchers, for sessions on either worker', async () => {
    const [worker1, worker2] = database.workerUrls;
    // A replica's start on a worker applies no migration (the coordinator's replica did): none is pending.
    expect(await runMigrations(worker1)).toEqual([]);
    const [onOne] = await sessionsOnNode(database.url, portOf(worker1), 'rep-a', 1);
    const [onTwo] = await sessionsOnNode(database.url, portOf(worker2), 'rep-b', 1);
    for (const id of [onOne, onTwo]) {
      // Written through replica 0 (on worker 1), read at once through replica 1 (on worker 2), and the reverse.
      expect((await post(0, '/v1/sessions', { sessionId: id, title: id, createdAt: 1 })).status).toBe(201);
      expect((await get(1, `/v1/sessions/${id}`)).body).toMatchObject({ sessionId: id, version: 1 });
      expect((await post(1, `/v1/sessions/${id}/submissions`, { runId: `run-${id}`, text: 'hello', submittedAt: 2 })).status).toBe(200);
      expect((await get(0, `/v1/sessions/${id}`)).body).toMatchObject({ version: 2, pendingTurn: { runId: `run-${id}` } });
    }

    // A watcher on each replica, of each session; a worker's replica writes. The coordinator's replica hears of it
    // only through its listeners on the workers: the append notifies on the worker that ran it.
    const watchers = [0, 1, 2].flatMap((i) =>
      [onOne, onTwo].map((id) => ({ i, id, stream: openEventStream(`${base[i]}/v1/sessions/${id}/live`, bearer(KEYS.read)) })),
    );
    await Promise.all(watchers.map((w) => w.stream.ready));
    await pollUntil('every watcher at version 2', () => watchers.every((w) => dataOf<{ version: number }>(w.stream.events, 'transcript').at(-1)?.version === 2));
    for (const [i, id] of [[1, onOne], [0, onTwo]] as const) {
      const res = await post(i, `/v1/sessions/${id}/runs/run-${id}/journal`, { events: [{ seq: 1, event: 'token', payload: { text: 'hi' }, createdAt: 3 }] });
      expect(res.status).toBe(200);
    }
    await pollUntil('every watcher at version 3', () => watchers.every((w) => dataOf<{ version: number }>(w.stream.events, 'transcript').at(-1)?.version === 3));
    for (const w of watchers) w.stream.close();

    // Either replica lists both (the projector may run on both: its cursor never moves back).
    for (const i of [0, 1, 2]) {
      await pollUntil(`replica ${i} lists both sessions at version 3`, async () => (await get(i, '/v1/sessions?q=rep-')).body.items ?? [], (items: { sessionId: string; version: number }[]) =>
        [onOne, onTwo].every((id) => items.some((item) => item.sessionId === id && item.version === 3)),
      );
    }
  });
});
