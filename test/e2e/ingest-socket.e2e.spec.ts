import type { AddressInfo } from 'node:net';
import pg from 'pg';
import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';
import { TestSocket, tokenMessage } from '../support/ingest-socket.js';

/**
 * `/v1/ingest`: the HTTP contract's ingestion commands as messages of one WebSocket, on the real app and a real
 * PostgreSQL: the key checked at the upgrade, one reply per message with the route's status and answer, order
 * per session, refusals that store nothing, the close codes, and shutdown.
 */
let t: TestApp;
let base: string;
const api = ingestClient(() => t.server);
const sockets: TestSocket[] = [];
/** A connection with `key` (none for null). */
const connect = (key: string | null = KEYS.ingest) => {
  const socket = new TestSocket(base, key);
  sockets.push(socket);
  return socket;
};

/** The seqs of a session's stored journal events, in stream order. */
async function journalSeqs(sessionId: string): Promise<number[]> {
  const events = await request(t.server).get(`/v1/sessions/${sessionId}/events?limit=1000`).set(bearer(KEYS.read));
  return (events.body.items as Array<{ type: string; data: { seq: number } }>).filter((e) => e.type === 'JournalEventRecorded').map((e) => e.data.seq);
}

async function startTurn(sessionId: string, runId = 'run-1') {
  await api.startSession(sessionId, { createdAt: 1_800_000_000 });
  await api.submit(sessionId, { runId, text: 'go', submittedAt: 1_800_000_000 });
}

beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_BODY_LIMIT_BYTES: '65536' });
  await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
});

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.terminate();
});

afterAll(async () => {
  await t?.close();
});

describe('the upgrade', () => {
  it('refuses a missing, unknown or read-only key with the HTTP route answer, and opens for an ingest key', async () => {
    const missing = await connect(null).opened;
    expect(missing).toMatchObject({ status: 401, contentType: 'application/problem+json', body: { code: 'UNAUTHENTICATED', status: 401 } });
    const unknown = await connect('not-a-key').opened;
    expect(unknown).toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' } });
    const readOnly = await connect(KEYS.read).opened;
    expect(readOnly).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    expect(await connect(KEYS.ingest).opened).toBeNull();
    expect(await connect(KEYS.admin).opened).toBeNull();
  });
});

describe('messages', () => {
  it('answers a journal message as the HTTP route does, and its repeat as a duplicate', async () => {
    await startTurn('ws-1');
    const socket = await connect().open();
    socket.send(tokenMessage('m1', 'ws-1', 'run-1', 1));
    socket.send(tokenMessage(2, 'ws-1', 'run-1', 1));
    const [first, repeat] = await socket.waitForReplies(2);
    expect(first).toEqual({ id: 'm1', status: 200, body: { sessionId: 'ws-1', version: 3, appended: 1, duplicate: false } });
    expect(repeat).toEqual({ id: 2, status: 200, body: { sessionId: 'ws-1', version: 3, appended: 0, duplicate: true } });
    // The same command over HTTP is a duplicate of the socket's.
    const http = await request(t.server)
      .post('/v1/sessions/ws-1/runs/run-1/journal')
      .set(bearer(KEYS.ingest))
      .send(tokenMessage(0, 'ws-1', 'run-1', 1).body);
    expect(http.body).toEqual(repeat.body);
  });

  it('takes every op of the contract: submission, journal, settle, state rows, messages', async () => {
    await api.startSession('ws-ops', { createdAt: 1_800_000_000 });
    const socket = await connect().open();
    socket.send({ id: 1, op: 'submission', sessionId: 'ws-ops', body: { runId: 'r1', text: 'hello', submittedAt: 1_800_000_001 } });
    socket.send({ id: 2, op: 'journal', sessionId: 'ws-ops', runId: 'r1', body: { events: [{ seq: 1, event: 'token', payload: { text: 'Hi' }, createdAt: 1_800_000_002 }] } });
    socket.send({
      id: 3,
      op: 'settle',
      sessionId: 'ws-ops',
      runId: 'r1',
      body: { rows: [{ role: 'user', content: 'hello', timestamp: 1_800_000_001 }, { role: 'assistant', content: 'Hi', timestamp: 1_800_000_003 }], settledAt: 1_800_000_003 },
    });
    socket.send({ id: 4, op: 'state-rows', sessionId: 'ws-ops', body: { rows: [{ rowId: 1, role: 'user', content: 'hello', timestamp: 1_800_000_001 }], observedAt: 1_800_000_004 } });
    socket.send({ id: 5, op: 'messages', sessionId: 'ws-ops', body: { rows: [{ role: 'user', content: 'later', timestamp: 1_800_000_010 }] } });
    const replies = await socket.waitForReplies(5);
    expect(replies.map((r) => [r.id, r.status, r.body.version])).toEqual([
      [1, 200, 2],
      [2, 200, 3],
      [3, 200, 4],
      [4, 200, 5],
      [5, 200, 6],
    ]);
    expect(await api.eventTypes('ws-ops')).toEqual([
      'SessionStarted',
      'UserMessageSubmitted',
      'JournalEventRecorded',
      'TurnSettled',
      'StateRowsObserved',
      'MessagesRecorded',
    ]);
  });

  it("applies one session's messages in the order they arrived, beside another session's", async () => {
    await startTurn('ws-order-a');
    await startTurn('ws-order-b');
    const socket = await connect().open();
    for (let seq = 1; seq <= 60; seq += 1) {
      socket.send(tokenMessage(`a${seq}`, 'ws-order-a', 'run-1', seq));
      socket.send(tokenMessage(`b${seq}`, 'ws-order-b', 'run-1', seq));
    }
    const replies = await socket.waitForReplies(120);
    for (const session of ['a', 'b']) {
      const mine = replies.filter((r) => String(r.id).startsWith(session));
      expect(mine.map((r) => r.id)).toEqual(Array.from({ length: 60 }, (_, i) => `${session}${i + 1}`));
      expect(mine.map((r) => r.body.version)).toEqual(Array.from({ length: 60 }, (_, i) => i + 3));
    }
    expect(await journalSeqs('ws-order-a')).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });

  it('answers a conflict with the problem details the route answers', async () => {
    await startTurn('ws-conflict');
    const socket = await connect().open();
    socket.send({ ...tokenMessage('c', 'ws-conflict', 'run-1', 1), body: { ...tokenMessage('c', 'ws-conflict', 'run-1', 1).body, expectedVersion: 7 } });
    const [reply] = await socket.waitForReplies(1);
    expect(reply).toMatchObject({ id: 'c', status: 409, body: { status: 409, code: 'STREAM_VERSION_CONFLICT' } });
  });
});

describe('refusals store nothing', () => {
  it('names each bad field of a malformed message, keeps the connection, and stores nothing', async () => {
    await startTurn('ws-bad');
    const before = await t.storedEvents();
    const socket = await connect().open();
    socket.sendRaw('{not json');
    socket.send({ id: 'x1', op: 'delete', sessionId: 'ws-bad', body: {} });
    socket.send({ id: 'x2', op: 'journal', sessionId: 'ws-bad', body: { events: [] } });
    socket.send({ id: 'x3', op: 'journal', sessionId: 'ws-bad', runId: 'run-1', body: { events: [{ seq: -1, event: 'token', payload: {}, createdAt: 1 }], extra: 1 } });
    socket.send({ id: 'x4', op: 'messages', sessionId: 'bad id!', body: { rows: [] } });
    socket.send({ id: 'x5', op: 'submission', sessionId: 'ws-bad', runId: 'run-1', body: { runId: 'run-2', text: 'x', submittedAt: 1 } });
    socket.send({ op: 'journal', sessionId: 'ws-bad', runId: 'run-1', body: tokenMessage(0, 'ws-bad', 'run-1', 1).body });
    const replies = await socket.waitForReplies(7);
    const byId = (id: string | null) => replies.filter((r) => r.id === id);
    for (const reply of replies) expect(reply).toMatchObject({ status: 400, body: { status: 400, code: 'VALIDATION_FAILED' } });
    const paths = (reply: (typeof replies)[number]) => (reply.body.errors as Array<{ path: string }>).map((e) => e.path);
    expect(byId(null).map(paths)).toEqual(expect.arrayContaining([['(message)'], ['id']]));
    expect(paths(byId('x1')[0]!)).toEqual(['op']);
    expect(paths(byId('x2')[0]!)).toEqual(['runId']);
    expect(paths(byId('x3')[0]!)).toEqual(expect.arrayContaining(['body.events.0.seq', 'body.extra']));
    expect(paths(byId('x4')[0]!)).toEqual(['sessionId']);
    expect(paths(byId('x5')[0]!)).toEqual(['runId']);
    expect(await t.storedEvents()).toBe(before);
    // Still open: a good message after them is applied.
    socket.send(tokenMessage('ok', 'ws-bad', 'run-1', 1));
    const [, , , , , , , ok] = await socket.waitForReplies(8);
    expect(ok).toMatchObject({ id: 'ok', status: 200 });
  });

  it('closes with 1009 on a message over the body limit, storing nothing', async () => {
    await startTurn('ws-big');
    const before = await t.storedEvents();
    const socket = await connect().open();
    socket.send({ ...tokenMessage('big', 'ws-big', 'run-1', 1), body: { events: [{ seq: 1, event: 'token', payload: { text: 'x'.repeat(80_000) }, createdAt: 1 }] } });
    expect(await socket.closed).toBe(1009);
    expect(socket.replies).toEqual([]);
    expect(await t.storedEvents()).toBe(before);
  });

  it('closes with 1007 on a text frame that is not UTF-8', async () => {
    const socket = await connect().open();
    socket.sendRaw(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    expect(await socket.closed).toBe(1007);
    expect(socket.replies).toEqual([]);
  });

  it('closes with 1003 on a binary frame', async () => {
    const socket = await connect().open();
    socket.sendRaw(Buffer.from(JSON.stringify(tokenMessage(1, 'ws-any', 'run-1', 1))), true);
    expect(await socket.closed).toBe(1003);
  });
});

describe('reconnecting', () => {
  it('lets a writer resend what was not answered after a cut connection: each (runId, seq) stored once', async () => {
    await startTurn('ws-resend');
    const first = await connect().open();
    for (let seq = 1; seq <= 40; seq += 1) first.send(tokenMessage(seq, 'ws-resend', 'run-1', seq));
    await first.waitForReplies(5);
    first.terminate();
    const second = await connect().open();
    for (let seq = 1; seq <= 40; seq += 1) second.send(tokenMessage(seq, 'ws-resend', 'run-1', seq));
    const replies = await second.waitForReplies(40);
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(replies.at(-1)!.body.version).toBe(42);
    expect(await journalSeqs('ws-resend')).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });
});

describe('shutdown', () => {
  it('answers every message it read, then closes with 1001; every acknowledged event is stored', async () => {
    const own = await startTestApp();
    await own.app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(own.app.getHttpServer().address() as AddressInfo).port}`;
    const ownApi = ingestClient(() => own.server);
    await ownApi.startSession('ws-bye', { createdAt: 1_800_000_000 });
    await ownApi.submit('ws-bye', { runId: 'run-1', text: 'go', submittedAt: 1_800_000_000 });
    const socket = new TestSocket(url, KEYS.ingest);
    sockets.push(socket);
    await socket.open();
    for (let seq = 1; seq <= 200; seq += 1) socket.send(tokenMessage(seq, 'ws-bye', 'run-1', seq));
    await socket.waitForReplies(1);
    await own.app.close();
    expect(await socket.closed).toBe(1001);
    expect(socket.closeReason).toBe('server shutting down');
    // Whatever was read was answered, each a success, in order; the rest the writer resends to the next replica.
    const replies = socket.replies;
    expect(replies.map((r) => r.status).every((status) => status === 200)).toBe(true);
    expect(replies.map((r) => r.id)).toEqual(Array.from({ length: replies.length }, (_, i) => i + 1));
    // Nothing acknowledged is lost: each answered seq is in the log, and nothing past the last answer is.
    const client = new pg.Client({ connectionString: own.database.url });
    await client.connect();
    try {
      const stored = await client.query<{ seq: number }>(
        `SELECT (data ->> 'seq')::int AS seq FROM events WHERE type = 'JournalEventRecorded' ORDER BY version`,
      );
      expect(stored.rows.map((row) => row.seq)).toEqual(replies.map((r) => r.id));
    } finally {
      await client.end();
      await own.database.drop();
    }
  });
});

describe('durability tiers', () => {
  const relaxedToken = (seq: number) => ({ seq, event: 'token', payload: { text: ` r${seq}` }, createdAt: 1_800_000_000 + seq, durability: 'relaxed' });

  it('answers durable: false for relaxed tokens, over HTTP and over the socket', async () => {
    await startTurn('ws-relaxed');
    const http = await request(t.server)
      .post('/v1/sessions/ws-relaxed/runs/run-1/journal')
      .set(bearer(KEYS.ingest))
      .send({ events: [relaxedToken(1), relaxedToken(2)] });
    expect(http.body).toEqual({ sessionId: 'ws-relaxed', version: 4, appended: 2, duplicate: false, durable: false });
    const socket = await connect().open();
    socket.send({ id: 'r', op: 'journal', sessionId: 'ws-relaxed', runId: 'run-1', body: { events: [relaxedToken(3)] } });
    const [reply] = await socket.waitForReplies(1);
    expect(reply).toEqual({ id: 'r', status: 200, body: { sessionId: 'ws-relaxed', version: 5, appended: 1, duplicate: false, durable: false } });
    // The field is transport, not data: the stored event is the one a durable send stores.
    expect(await journalSeqs('ws-relaxed')).toEqual([1, 2, 3]);
    const stored = await request(t.server).get('/v1/sessions/ws-relaxed/events?after=2&limit=1').set(bearer(KEYS.read));
    expect(stored.body.items[0].data).toEqual({ runId: 'run-1', seq: 1, event: 'token', payload: { text: ' r1' }, createdAt: 1_800_000_001 });
  });

  it('commits a request durably when any of its events is durable (no durable field in the answer)', async () => {
    await startTurn('ws-mixed');
    const res = await request(t.server)
      .post('/v1/sessions/ws-mixed/runs/run-1/journal')
      .set(bearer(KEYS.ingest))
      .send({ events: [relaxedToken(1), { seq: 2, event: 'token', payload: { text: 'x' }, createdAt: 1_800_000_002 }] });
    expect(res.body).toEqual({ sessionId: 'ws-mixed', version: 4, appended: 2, duplicate: false });
  });

  it('refuses a relaxed terminal event, naming the field, and stores nothing', async () => {
    await startTurn('ws-relaxed-done');
    const before = await t.storedEvents();
    const res = await request(t.server)
      .post('/v1/sessions/ws-relaxed-done/runs/run-1/journal')
      .set(bearer(KEYS.ingest))
      .send({ events: [relaxedToken(1), { seq: 2, event: 'done', payload: {}, createdAt: 1_800_000_002, durability: 'relaxed' }] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'events.1.durability', message: 'only token and interim_assistant events may be relaxed' }]);
    const socket = await connect().open();
    socket.send({ id: 'd', op: 'journal', sessionId: 'ws-relaxed-done', runId: 'run-1', body: { events: [{ seq: 2, event: 'done', payload: {}, createdAt: 1, durability: 'relaxed' }] } });
    const [reply] = await socket.waitForReplies(1);
    expect(reply).toMatchObject({ id: 'd', status: 400, body: { errors: [{ path: 'body.events.0.durability' }] } });
    expect(await t.storedEvents()).toBe(before);
  });
});
