import type { AddressInfo } from 'node:net';
import pg from 'pg';
import request from 'supertest';
import WebSocket from 'ws';
import { IngestGateway } from '../../apps/session-api/src/ingest/ingest.gateway.js';
import { bearer, KEYS, startTestApp, TEST_KEYS_SPEC, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';
import { TestSocket, tokenMessage } from '../support/ingest-socket.js';

/**
 * `/v1/ingest` under pressure, on the real app and a real PostgreSQL (CHRONICLE_INGEST_MAX_UNANSWERED=4): at most
 * that many messages taken and unanswered however many one read brings; a client that stops reading its replies
 * stops being read (the server buffers no more than that); a connection paused while its commits wait is not
 * dropped by the heartbeat; a message's body is held to the HTTP body limit; one refused message of a shared
 * journal write does not take its neighbours down; and a key's rate limit counts messages as it counts requests.
 */
const T0 = 1_800_000_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startApp(env: Record<string, string>, keys?: string) {
  const app = await startTestApp({ CHRONICLE_INGEST_MAX_UNANSWERED: '4', ...env }, keys === undefined ? {} : { keys });
  await app.app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.app.getHttpServer().address() as AddressInfo).port}`;
  return { app, base, api: ingestClient(() => app.server) };
}

let t: TestApp;
let base: string;
let api: ReturnType<typeof ingestClient>;
const sockets: TestSocket[] = [];
const connect = async (key: string = KEYS.ingest, url = base) => {
  const socket = new TestSocket(url, key);
  sockets.push(socket);
  return socket.open();
};

async function startTurn(sessionId: string, client = api) {
  await client.startSession(sessionId, { createdAt: T0 });
  await client.submit(sessionId, { runId: 'run-1', text: 'go', submittedAt: T0 });
}

async function journalSeqs(sessionId: string, app = t): Promise<number[]> {
  const rows = await app.query<{ seq: number }>(
    `SELECT (data ->> 'seq')::int AS seq FROM events WHERE stream_id = $1 AND type = 'JournalEventRecorded' ORDER BY version`,
    [`session-${sessionId}`],
  );
  return rows.map((row) => row.seq);
}

/** The server's side of the newest `/v1/ingest` connection of an app: its socket and its connection. */
function serverSide(app: TestApp) {
  const connections = (app.app.get(IngestGateway) as unknown as { connections: Map<WebSocket, { connection: object }> }).connections;
  const [socket, entry] = [...connections.entries()].at(-1)!;
  return { socket, connection: entry.connection as Record<string, unknown> };
}

beforeAll(async () => {
  ({ app: t, base, api } = await startApp({ CHRONICLE_BODY_LIMIT_BYTES: '65536' }, `${TEST_KEYS_SPEC},limited-key:ingest@3`));
});

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.terminate();
});

afterAll(async () => {
  await t?.close();
});

it('takes at most 4 messages unanswered, however many frames one read brings', async () => {
  await startTurn('bp-bound');
  const socket = await connect();
  await sleep(20);
  const { connection } = serverSide(t);
  let unanswered = connection.unanswered as number;
  let most = 0;
  Object.defineProperty(connection, 'unanswered', {
    get: () => unanswered,
    set: (value: number) => {
      unanswered = value;
      most = Math.max(most, value);
    },
  });
  for (let seq = 1; seq <= 300; seq += 1) socket.send(tokenMessage(seq, 'bp-bound', 'run-1', seq));
  const replies = await socket.waitForReplies(300, 30_000);
  expect(replies.every((reply) => reply.status === 200)).toBe(true);
  expect(most).toBe(4);
  expect(await journalSeqs('bp-bound')).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
});

it('stops reading a client that stops reading its replies: what the server buffers for it stays bounded', async () => {
  await startTurn('bp-reader');
  const raw = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/ingest`, { headers: { Authorization: `Bearer ${KEYS.ingest}` } });
  await new Promise((resolve) => raw.once('open', resolve));
  raw.on('error', () => undefined);
  let read = 0;
  raw.on('message', () => (read += 1));
  raw.pause();
  await sleep(20);
  const { socket: server } = serverSide(t);
  // Malformed messages with large answers (every bad field named), then tokens: ~40 MB of replies if all were read.
  const badFrame = JSON.stringify({ id: 'bad', op: 'journal', sessionId: 'bp-reader', runId: 'run-1', body: { events: Array.from({ length: 900 }, () => ({ seq: -1, event: 'token', payload: {}, createdAt: 1 })) } });
  for (let i = 0; i < 400; i += 1) raw.send(badFrame);
  for (let seq = 1; seq <= 200; seq += 1) raw.send(JSON.stringify(tokenMessage(seq, 'bp-reader', 'run-1', seq)));
  let peak = 0;
  for (let i = 0; i < 40; i += 1) {
    await sleep(50);
    peak = Math.max(peak, server.bufferedAmount);
  }
  expect(read).toBe(0);
  // At most 4 replies wait in the server's own buffer (the kernel's hold the rest); before, all of them did.
  expect(peak).toBeLessThan(1_000_000);
  expect((await journalSeqs('bp-reader')).length).toBeLessThan(200);
  // Once the client reads again, every message is answered and every token stored.
  raw.resume();
  const deadline = Date.now() + 30_000;
  while (read < 600 && Date.now() < deadline) await sleep(20);
  expect(read).toBe(600);
  expect(await journalSeqs('bp-reader')).toHaveLength(200);
  raw.terminate();
}, 60_000);

it('keeps a connection paused while its commits wait: the heartbeat does not drop it', async () => {
  const own = await startApp({ CHRONICLE_LIVE_HEARTBEAT_MS: '200' });
  try {
    await startTurn('bp-stall', own.api);
    const socket = await connect(KEYS.ingest, own.base);
    socket.send(tokenMessage(1, 'bp-stall', 'run-1', 1));
    await socket.waitForReplies(1);
    // The events table locked for 1.2 s: six heartbeats while the connection waits at its limit.
    const blocker = new pg.Client({ connectionString: own.app.database.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE events IN SHARE MODE');
    for (let seq = 2; seq <= 9; seq += 1) socket.send(tokenMessage(seq, 'bp-stall', 'run-1', seq));
    await sleep(1200);
    await blocker.query('COMMIT');
    await blocker.end();
    const replies = await socket.waitForReplies(9);
    expect(replies.map((reply) => reply.status)).toEqual(Array(9).fill(200));
    expect(socket.closeCode).toBeUndefined();
    expect(await journalSeqs('bp-stall', own.app)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  } finally {
    for (const socket of sockets.splice(0)) socket.terminate();
    await own.app.close();
  }
}, 60_000);

it('answers a message whose body is over the HTTP body limit 413, as the route does, and stores nothing', async () => {
  await startTurn('bp-limit');
  const body = { events: [{ seq: 1, event: 'token', payload: { text: 'x'.repeat(66_000) }, createdAt: T0 + 1 }] };
  const http = await request(t.server).post('/v1/sessions/bp-limit/runs/run-1/journal').set(bearer(KEYS.ingest)).set('Content-Type', 'application/json').send(JSON.stringify(body));
  expect([http.status, http.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  const socket = await connect();
  // Under the frame limit (body limit + the envelope's allowance), over the body limit.
  socket.send({ id: 'big', op: 'journal', sessionId: 'bp-limit', runId: 'run-1', body });
  socket.send(tokenMessage('next', 'bp-limit', 'run-1', 2));
  // Over the limit in bytes, not in characters: 33,000 two-byte characters.
  socket.send({ id: 'wide', op: 'journal', sessionId: 'bp-limit', runId: 'run-1', body: { events: [{ seq: 3, event: 'token', payload: { text: 'é'.repeat(33_000) }, createdAt: T0 + 3 }] } });
  // A refusal is answered at once, a commit after it: by id, not by arrival.
  const replies = await socket.waitForReplies(3);
  const [big, next, wide] = ['big', 'next', 'wide'].map((id) => replies.find((reply) => reply.id === id));
  expect(big).toMatchObject({ id: 'big', status: 413, body: { code: 'PAYLOAD_TOO_LARGE', status: 413 } });
  expect(next).toMatchObject({ id: 'next', status: 200 });
  expect(wide).toMatchObject({ id: 'wide', status: 413 });
  expect(await journalSeqs('bp-limit')).toEqual([2]);
});

it("answers each message of a shared journal write on its own: one refusal does not refuse its neighbours", async () => {
  await startTurn('bp-merge');
  const socket = await connect();
  // 2, 3 and 4 wait together behind 1 and go as one write; 3 holds text PostgreSQL cannot store.
  socket.send(tokenMessage(1, 'bp-merge', 'run-1', 1));
  socket.send(tokenMessage(2, 'bp-merge', 'run-1', 2));
  socket.send({ id: 3, op: 'journal', sessionId: 'bp-merge', runId: 'run-1', body: { events: [{ seq: 3, event: 'token', payload: { text: 'bad\u0000' }, createdAt: T0 + 3 }] } });
  socket.send(tokenMessage(4, 'bp-merge', 'run-1', 4));
  const replies = await socket.waitForReplies(4);
  expect(replies.map((reply) => [reply.id, reply.status])).toEqual([
    [1, 200],
    [2, 200],
    [3, 400],
    [4, 200],
  ]);
  expect(await journalSeqs('bp-merge')).toEqual([1, 2, 4]);
});

it("counts each message against its key's rate limit, as each HTTP request is counted", async () => {
  await startTurn('bp-limited');
  const socket = await connect('limited-key');
  for (let seq = 1; seq <= 6; seq += 1) socket.send(tokenMessage(seq, 'bp-limited', 'run-1', seq));
  // A refusal is answered at once, a commit after it: in the order of the ids, not of arrival.
  const replies = [...(await socket.waitForReplies(6))].sort((a, b) => Number(a.id) - Number(b.id));
  // The upgrade took one of the three a minute: two messages pass, the rest are refused and not stored.
  expect(replies.map((reply) => reply.status)).toEqual([200, 200, 429, 429, 429, 429]);
  expect(replies[2]!.body).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
  expect(await journalSeqs('bp-limited')).toEqual([1, 2]);
});
