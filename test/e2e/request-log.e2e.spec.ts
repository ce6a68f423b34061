import pino from 'pino';
import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { pollUntil } from '../support/poll.js';

const lines: Record<string, unknown>[] = [];
const log = pino({ level: 'info', name: 'chronicle' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
const requestLines = () => lines.filter((line) => line.msg === 'request');

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ LOG_LEVEL: 'info', CHRONICLE_BODY_LIMIT_BYTES: '10000' }, { log });
});
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  lines.length = 0;
});

/** The log line of a request is written once its response finished, which supertest may see first. */
const eventuallyLogged = (count: number) => pollUntil(`${count} request log lines`, requestLines, (logged) => logged.length >= count);

describe('x-request-id', () => {
  it('takes the caller\'s id, echoes it and stores it with the events the request appended', async () => {
    const res = await request(t.server)
      .post('/v1/sessions')
      .set(bearer(KEYS.ingest))
      .set('x-request-id', 'gateway-req-1')
      .send({ sessionId: 'rid-1', createdAt: 1 });
    expect(res.status).toBe(201);
    expect(res.headers['x-request-id']).toBe('gateway-req-1');
    const events = await request(t.server).get('/v1/sessions/rid-1/events').set(bearer(KEYS.read));
    expect(events.body.items[0].metadata).toEqual({ requestId: 'gateway-req-1' });
  });

  it('generates one when the caller sends none or an over-long one, errors and unknown routes included', async () => {
    const none = await request(t.server).get('/v1/sessions/never-started').set(bearer(KEYS.read));
    expect(none.status).toBe(404);
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const long = await request(t.server).get('/nowhere').set('x-request-id', 'x'.repeat(129));
    expect(long.status).toBe(404);
    expect(long.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('the request log', () => {
  it('writes one short line per request: method, route template, status, duration, request id', async () => {
    await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'log-1', createdAt: 1 });
    const res = await request(t.server)
      .post('/v1/sessions/log-1/messages')
      .set(bearer(KEYS.ingest))
      .set('x-request-id', 'req-log-2')
      .send({ rows: [{ role: 'user', content: 'hi', timestamp: 2 }] });
    expect(res.status).toBe(200);
    const logged = await eventuallyLogged(2);
    expect(logged).toHaveLength(2);
    const line = logged[1];
    expect(line).toMatchObject({ level: 30, reqId: 'req-log-2', method: 'POST', route: '/v1/sessions/:id/messages', status: 200 });
    expect(typeof line.ms).toBe('number');
    expect(Object.keys(line).sort()).toEqual(['hostname', 'level', 'method', 'ms', 'msg', 'name', 'pid', 'reqId', 'route', 'status', 'time']);
    expect(JSON.stringify(logged)).not.toContain(KEYS.ingest);
  });

  it('logs refused requests at warn with their problem code, without the query string', async () => {
    await request(t.server).get('/v1/sessions/log-1/events?after=-1').set(bearer(KEYS.read));
    const [line] = await eventuallyLogged(1);
    expect(line).toMatchObject({ level: 40, route: '/v1/sessions/:id/events', status: 400, code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(line)).not.toContain('after=');
  });

  it('names the problem code of every kind of refusal: the router, authentication, a read, a domain rule', async () => {
    await request(t.server).get('/v1/nowhere/at-all');
    await request(t.server).get('/v1/sessions/never-logged').set(bearer(KEYS.read));
    await request(t.server).get('/v1/sessions/log-1');
    await request(t.server).post('/v1/sessions/log-1/messages').set(bearer(KEYS.read)).send({ rows: [] });
    await request(t.server).post('/v1/sessions/log-1/truncate').set(bearer(KEYS.ingest)).send({ keepCount: 99, reason: 'undo', at: 3 });
    const logged = await eventuallyLogged(5);
    expect(logged.map(({ status, code }) => [status, code])).toEqual([
      [404, 'ROUTE_NOT_FOUND'],
      [404, 'SESSION_NOT_FOUND'],
      [401, 'UNAUTHENTICATED'],
      [403, 'FORBIDDEN'],
      [422, 'KEEP_COUNT_OUT_OF_RANGE'],
    ]);
  });

  it('logs a malformed JSON body and an oversized one with the caller\'s request id, and answers with it', async () => {
    const malformed = await request(t.server)
      .post('/v1/sessions/log-1/messages')
      .set(bearer(KEYS.ingest))
      .set('x-request-id', 'bad-json-1')
      .set('Content-Type', 'application/json')
      .send('{"rows": [');
    expect([malformed.status, malformed.headers['x-request-id']]).toEqual([400, 'bad-json-1']);
    const oversized = await request(t.server)
      .post('/v1/sessions/log-1/messages')
      .set(bearer(KEYS.ingest))
      .set('x-request-id', 'too-big-1')
      .send({ rows: [{ role: 'user', content: 'x'.repeat(20_000) }] });
    expect([oversized.status, oversized.headers['x-request-id']]).toEqual([413, 'too-big-1']);
    const logged = await eventuallyLogged(2);
    expect(logged).toEqual([
      expect.objectContaining({ level: 40, reqId: 'bad-json-1', route: '/v1/sessions/:id/messages', status: 400, code: 'VALIDATION_FAILED' }),
      expect.objectContaining({ level: 40, reqId: 'too-big-1', route: '/v1/sessions/:id/messages', status: 413, code: 'PAYLOAD_TOO_LARGE' }),
    ]);
  });

  it('leaves out health probes and metric scrapes', async () => {
    expect((await request(t.server).get('/health/live')).status).toBe(200);
    expect((await request(t.server).get('/metrics')).status).toBe(200);
    await request(t.server).get('/v1/sessions/log-1').set(bearer(KEYS.read));
    const logged = await eventuallyLogged(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requestLines().map((line) => line.route)).toEqual(['/v1/sessions/:id']);
    expect(logged).toHaveLength(1);
  });

  it('sends Nest\'s own log lines through pino as JSON with their context', async () => {
    const other: Record<string, unknown>[] = [];
    const appLog = pino({ level: 'info' }, { write: (line: string) => void other.push(JSON.parse(line)) });
    const booted = await startTestApp({ LOG_LEVEL: 'info' }, { log: appLog });
    await booted.close();
    expect(other).toContainEqual(expect.objectContaining({ level: 30, context: 'NestApplication', msg: expect.stringContaining('started') }));
  });
});
