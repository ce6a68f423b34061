import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_BODY_LIMIT_BYTES: '2000000' }, { keys: `${KEYS.admin}:admin@0,limited:read@3` });
  await request(t.server).post('/v1/sessions').set(bearer(KEYS.admin)).send({ sessionId: 'lim', createdAt: 1 });
});
afterAll(async () => {
  await t.close();
});

const admin = bearer(KEYS.admin);
const texts = (res: request.Response) => [res.body.detail, ...(res.body.errors ?? []).map((e: { path: string; message: string }) => `${e.path}: ${e.message}`)].join(' | ');
const row = { role: 'user', content: 'x', timestamp: 1 };
const events = (n: number) => Array.from({ length: n }, (_, i) => ({ seq: i + 1, event: 'token', payload: {}, createdAt: 1 }));

/** [limit, request, status, text the answer must hold]: each limit of the README's table. */
const LIMITS: [string, () => request.Test, number, RegExp][] = [
  ['body size', () => request(t.server).post('/v1/sessions/lim/messages').set(admin).send({ rows: [{ ...row, content: 'x'.repeat(2_000_001) }] }), 413, /limit of 2000000 bytes/],
  ['events per journal batch', () => request(t.server).post('/v1/sessions/lim/runs/r/journal').set(admin).send({ events: events(1001) }), 400, /events: .*1000/],
  ['rows per messages request', () => request(t.server).post('/v1/sessions/lim/messages').set(admin).send({ rows: Array(1001).fill(row) }), 400, /rows: .*1000/],
  ['rows per settle', () => request(t.server).post('/v1/sessions/lim/runs/r/settle').set(admin).send({ rows: Array(1001).fill(row), settledAt: 1 }), 400, /rows: .*1000/],
  ['state rows per request', () => request(t.server).post('/v1/sessions/lim/state-rows').set(admin).send({ observedAt: 1, rows: Array.from({ length: 5001 }, (_, i) => ({ ...row, rowId: i })) }), 400, /rows: .*5000/],
  ['session list page size', () => request(t.server).get('/v1/sessions?limit=201').set(admin), 400, /query\.limit: .*200/],
  ['session list search text', () => request(t.server).get(`/v1/sessions?q=${'q'.repeat(201)}`).set(admin), 400, /query\.q: .*200/],
  ['events page size', () => request(t.server).get('/v1/sessions/lim/events?limit=1001').set(admin), 400, /query\.limit: .*1000/],
  ['id length', () => request(t.server).post('/v1/sessions').set(admin).send({ sessionId: 'i'.repeat(129) }), 400, /sessionId: must match \[A-Za-z0-9_.:-\]\{1,128\}/],
  ['title length', () => request(t.server).post('/v1/sessions').set(admin).send({ sessionId: 'long-title', title: 't'.repeat(1001) }), 400, /title: .*1000/],
  ['free-form nesting', () => request(t.server).post('/v1/sessions/lim/messages').set(admin).send({ rows: [{ ...row, meta: JSON.parse(`${'{"a":'.repeat(65)}1${'}'.repeat(65)}`) }] }), 400, /rows\.0\.meta: nested deeper than 64 levels/],
];

describe('each limit', () => {
  it.each(LIMITS)('%s: answers its status with a message naming the limit, and stores nothing', async (_name, send, status, text) => {
    const before = (await request(t.server).get('/v1/sessions/lim').set(admin)).body.version;
    const res = await send();
    expect(res.status).toBe(status);
    expect(texts(res)).toMatch(text);
    expect((await request(t.server).get('/v1/sessions/lim').set(admin)).body.version).toBe(before);
  });

  it('rate limit: a key over its requests per minute gets 429, Retry-After and the limit', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push(await request(t.server).get('/v1/sessions/lim').set(bearer('limited')));
    expect(statuses.map((res) => res.status)).toEqual([200, 200, 200, 429]);
    expect(statuses[3].body.detail).toContain('limit 3 per minute');
    expect(Number(statuses[3].headers['retry-after'])).toBeGreaterThan(0);
  });
});
