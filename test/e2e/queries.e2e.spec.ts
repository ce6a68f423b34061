import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { projectSession, renderTranscript, type SessionEvent } from '#domain';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';
import { scrapeMetric } from '../support/metrics.js';
import { pollUntil } from '../support/poll.js';
import { dataOf, openEventStream } from '../support/server-sent-events.js';

let t: TestApp;
let baseUrl: string;
beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_PROJECTOR_INTERVAL_MS: '50', CHRONICLE_LIVE_HEARTBEAT_MS: '100' });
  await t.app.listen(0, '127.0.0.1');
  baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
});

const api = ingestClient(() => t.server);
const { read } = api;

describe('time travel', () => {
  it('answers the transcript as of any version, equal to a replay of the events up to it', async () => {
    await api.startSession('tt', { title: 'Time travel', createdAt: 1 });
    for (let i = 0; i < 4; i++) {
      await api.recordMessages('tt', [
        { role: 'user', content: `q${i}`, timestamp: 10 + 2 * i },
        { role: 'assistant', content: `a${i}`, timestamp: 11 + 2 * i },
      ]);
    }
    const events = (await read('/v1/sessions/tt/events?limit=1000')).body.items as { type: string; data: unknown }[];
    for (let at = 1; at <= events.length; at++) {
      const res = await read(`/v1/sessions/tt/transcript?view=display&at=${at}`);
      const replay = renderTranscript(projectSession(events.slice(0, at) as SessionEvent[]), 'display');
      expect(res.body.version).toBe(at);
      expect(res.body.messages).toEqual(replay.messages);
      expect(res.body.hash).toBe(replay.hash);
    }
    const context = await read('/v1/sessions/tt/transcript?view=context&at=3');
    expect(context.body.view).toBe('context');
    expect(context.body.messages.map((m: { content: string }) => m.content)).toEqual(['q0', 'a0', 'q1', 'a1']);
  });
});

describe('GET /v1/sessions/{id}/transcript conditional requests', () => {
  it('carries a strong ETag per version and view, answers 304 to If-None-Match until the session changes', async () => {
    await api.startSession('etag', { createdAt: 1 });
    const first = await read('/v1/sessions/etag/transcript');
    expect(first.headers.etag).toMatch(/^"display-1-[0-9a-f]{64}"$/);
    expect(first.headers.etag).toContain(first.body.hash);
    const context = await read('/v1/sessions/etag/transcript?view=context');
    expect(context.headers.etag).not.toBe(first.headers.etag);

    const unchanged = await read('/v1/sessions/etag/transcript').set('If-None-Match', first.headers.etag);
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    expect(unchanged.headers.etag).toBe(first.headers.etag);

    await api.recordMessages('etag', [{ role: 'user', content: 'new', timestamp: 2 }]);
    const changed = await read('/v1/sessions/etag/transcript').set('If-None-Match', first.headers.etag);
    expect(changed.status).toBe(200);
    expect(changed.body.version).toBe(2);
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    // Time travel to the version the client holds is that version's answer, with its tag.
    expect((await read('/v1/sessions/etag/transcript?at=1').set('If-None-Match', first.headers.etag)).status).toBe(304);
  });
});

describe('cached transcript answers', () => {
  const raw = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      http
        .get(`${baseUrl}${path}`, { headers: { ...bearer(KEYS.read), ...headers } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });

  it('sends the same answer as brotli, gzip or identity as the client asks, and counts the cache in bytes', async () => {
    await api.startSession('coded', { createdAt: 1 });
    const rows = Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `row ${i} ${'text '.repeat(20)}`, timestamp: 10 + i }));
    await api.recordMessages('coded', rows);
    const plain = await raw('/v1/sessions/coded/transcript', {});
    const br = await raw('/v1/sessions/coded/transcript', { 'Accept-Encoding': 'gzip;q=0.5, br' });
    const gzip = await raw('/v1/sessions/coded/transcript', { 'Accept-Encoding': 'gzip, br;q=0' });
    expect([plain.status, br.status, gzip.status]).toEqual([200, 200, 200]);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(br.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(br.headers.vary).toContain('Accept-Encoding');
    expect(br.body.length).toBeLessThan(plain.body.length);
    const decoded = [plain.body, brotliDecompressSync(br.body), gunzipSync(gzip.body)].map((b) => JSON.parse(b.toString('utf8')));
    expect(decoded[1]).toEqual(decoded[0]);
    expect(decoded[2]).toEqual(decoded[0]);
    expect(decoded[0].messages).toHaveLength(40);
    expect(new Set([plain, br, gzip].map((r) => r.headers.etag)).size).toBe(1);
    expect(await scrapeMetric(t.server, 'chronicle_answer_cache_bytes')).toBeGreaterThan(plain.body.length);
  });
});

describe('GET /v1/sessions (async index)', () => {
  it('lists, filters by status and text, and paginates with a cursor', async () => {
    for (const [id, title] of [
      ['list-a', 'Alpha project'],
      ['list-b', 'Beta notes'],
      ['list-c', 'alpha release'],
    ]) {
      await api.startSession(id, { title, createdAt: 50 });
    }
    await api.submit('list-b', { runId: 'rb', text: 'go', submittedAt: 60 });
    const all = await pollUntil(
      'a first page of two listed sessions with a next cursor',
      () => read('/v1/sessions?q=list-&limit=2'),
      (res) => res.body.items?.length === 2 && res.body.nextCursor !== null,
    );
    const next = await read(`/v1/sessions?q=list-&limit=2&cursor=${all.body.nextCursor}`);
    const ids = [...all.body.items, ...next.body.items].map((s: { sessionId: string }) => s.sessionId).sort();
    expect(ids).toEqual(['list-a', 'list-b', 'list-c']);
    expect(next.body.nextCursor).toBeNull();

    const alpha = await read('/v1/sessions?q=ALPHA');
    expect(alpha.body.items.map((s: { sessionId: string }) => s.sessionId).sort()).toEqual(['list-a', 'list-c']);
    const pending = await pollUntil(
      'list-b listed as pending',
      () => read('/v1/sessions?status=pending'),
      (res) => res.body.items?.some((s: { sessionId: string }) => s.sessionId === 'list-b'),
    );
    expect(pending.body.items.map((s: { sessionId: string }) => s.sessionId)).toEqual(['list-b']);
    const noMarkers = { pending: 0, recovered: 0, noOutput: 0, neutral: 0 };
    expect(pending.body.items[0]).toEqual({
      sessionId: 'list-b',
      title: 'Beta notes',
      parentSessionId: null,
      archived: false,
      version: 2,
      createdAt: 50,
      lastActivityAt: expect.any(Number),
      messageCount: expect.any(Number),
      status: 'pending',
      pendingTurn: { runId: 'rb', text: 'go', attachments: [], submittedAt: 60, source: null },
      markers: noMarkers,
    });
    // Each list item is the SessionSummary that GET /v1/sessions/{id} answers at the same version.
    expect(pending.body.items[0]).toEqual((await read('/v1/sessions/list-b')).body);
    const alphaA = alpha.body.items.find((s: { sessionId: string }) => s.sessionId === 'list-a');
    expect(alphaA).toMatchObject({ version: 1, status: 'active', pendingTurn: null, markers: noMarkers });

    // The sweep interrupts the stale turn: the index then lists a marker waiting for its journal, no pending turn.
    const sweep = await api.admin('/v1/recovery/sweep').send({});
    expect(sweep.body).toMatchObject({ interrupted: 1 });
    const recovering = await pollUntil(
      'one session listed as recovering',
      () => read('/v1/sessions?status=recovering&q=list-'),
      (res) => res.body.items?.length === 1,
    );
    expect(recovering.body.items).toEqual([
      expect.objectContaining({
        sessionId: 'list-b',
        version: 3,
        status: 'recovering',
        pendingTurn: null,
        markers: { ...noMarkers, pending: 1 },
      }),
    ]);
    expect(recovering.body.items[0]).toEqual((await read('/v1/sessions/list-b')).body);

    const bad = await read('/v1/sessions?status=sleeping&cursor=zzz');
    expect(bad.status).toBe(400);
  });
});

describe('GET /v1/sessions/{id}/markers', () => {
  it('lists no markers for a session without recovery decisions', async () => {
    await api.startSession('mk', { createdAt: 1 });
    const res = await read('/v1/sessions/mk/markers');
    expect(res.body).toEqual({ items: [] });
  });
});

function openLive(path: string, lastEventId?: string) {
  const stream = openEventStream(`${baseUrl}${path}`, { ...bearer(KEYS.read), ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) });
  const events = () => dataOf<{ version: number; hash: string }>(stream.events, 'transcript');
  return { ready: stream.ready, events, text: stream.text, close: stream.close };
}

describe('GET /v1/sessions/{id}/live (SSE)', () => {
  it('sends the current version, one event per change, heartbeats, and resumes from Last-Event-ID', async () => {
    await api.startSession('live', { createdAt: 1 });
    const live = openLive('/v1/sessions/live/live');
    const res = await live.ready;
    expect(res.headers['content-type']).toContain('text/event-stream');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    await pollUntil('the first transcript event', live.events, (e) => e.length === 1);
    await api.recordMessages('live', [{ role: 'user', content: 'ping', timestamp: 2 }]);
    const events = await pollUntil('the transcript event of version 2', live.events, (e) => e.length === 2);
    expect(events.map((e) => e.version)).toEqual([1, 2]);
    const transcript = await read('/v1/sessions/live/transcript');
    expect(events[1].hash).toBe(transcript.body.hash);
    await pollUntil('a heartbeat', live.text, (text) => text.includes(': heartbeat'));
    live.close();

    await api.recordMessages('live', [{ role: 'assistant', content: 'pong', timestamp: 3 }]);
    const resumed = openLive('/v1/sessions/live/live', '2');
    await resumed.ready;
    const missed = await pollUntil('the missed version after Last-Event-ID', resumed.events, (e) => e.length === 1);
    expect(missed.map((e) => e.version)).toEqual([3]);
    resumed.close();
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After, naming the limit, once a key spends the default budget', async () => {
    const limited = await startTestApp({ CHRONICLE_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await request(limited.server).get('/v1/sessions').set(bearer(KEYS.read))).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const res = await request(limited.server).get('/v1/sessions').set(bearer(KEYS.read));
      expect(res.body.code).toBe('RATE_LIMITED');
      expect(res.body.detail).toContain('limit 3 per minute');
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('holds a key to its own @limit while the default stays off for the others', async () => {
    const keys = `${KEYS.admin}:admin,${KEYS.ingest}:ingest,${KEYS.read}:read@2`;
    const limited = await startTestApp({}, { keys });
    try {
      const reads = [];
      for (let i = 0; i < 3; i++) reads.push(await request(limited.server).get('/v1/sessions').set(bearer(KEYS.read)));
      expect(reads.map((res) => res.status)).toEqual([200, 200, 429]);
      expect(reads[2].body.detail).toContain('limit 2 per minute');
      const admin = [];
      for (let i = 0; i < 20; i++) admin.push((await request(limited.server).get('/v1/sessions').set(bearer(KEYS.admin))).status);
      expect(admin.every((status) => status === 200)).toBe(true);
    } finally {
      await limited.close();
    }
  });
});
