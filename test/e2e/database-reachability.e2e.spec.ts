import pino from 'pino';
import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { scrapeMetric } from '../support/metrics.js';
import { pollUntil } from '../support/poll.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// Issue 11 item 7: an outage is logged once per change of state, not by every loop tick or request, and
// /health/ready says which check fails. The service reaches PostgreSQL through a proxy that can cut it off.
const lines: Record<string, unknown>[] = [];
const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
const said = (msg: string) => lines.filter((line) => line.msg === msg);

let t: TestApp;
let proxy: TcpProxy;
beforeAll(async () => {
  t = await startTestApp(
    // Every loop that meets the database ticks several times a second during the outage.
    { LOG_LEVEL: 'info', CHRONICLE_PROJECTOR_INTERVAL_MS: '100', CHRONICLE_RECOVERY_INTERVAL_MS: '100', CHRONICLE_AUDIT_INTERVAL_MS: '100' },
    {
      log,
      connectVia: async (url) => {
        proxy = await startTcpProxy(url);
        return proxy.url;
      },
    },
  );
  await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'reach', createdAt: 1 });
});
afterAll(async () => {
  await t.close();
  await proxy.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const reachableGauge = () => scrapeMetric(t.server, 'chronicle_database_reachable');

describe('while the database is reachable', () => {
  it('answers ready 200 with every check by name', async () => {
    const res = await request(t.server).get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', checks: { database: { status: 'up' }, migrations: { status: 'up' } } });
    expect(res.body.details).toEqual(res.body.checks);
    expect(await reachableGauge()).toBe(1);
  });
});

describe('when the database becomes unreachable and comes back', () => {
  it('logs one line when it goes, one when it returns, and ready names the failing check meanwhile', async () => {
    lines.length = 0;
    proxy.cut();
    const answers: number[] = [];
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      answers.push((await request(t.server).get('/v1/sessions/reach/transcript').set(bearer(KEYS.read))).status);
      answers.push(
        (await request(t.server).post('/v1/sessions/reach/messages').set(bearer(KEYS.ingest)).send({ rows: [{ role: 'user', content: 'x' }] })).status,
      );
      await pause(50);
    }
    const ready = await request(t.server).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.headers['content-type']).toContain('application/problem+json');
    expect(ready.body).toMatchObject({
      status: 503,
      code: 'NOT_READY',
      detail: expect.stringMatching(/^Not ready: database \(.+\)/),
      checks: { database: { status: 'down', error: expect.any(String) } },
    });
    expect(await reachableGauge()).toBe(0);
    expect(answers.length).toBeGreaterThan(4);
    expect(new Set(answers)).toEqual(new Set([503]));

    proxy.restore();
    await pollUntil('ready 200 again', async () => (await request(t.server).get('/health/ready')).status, (status) => status === 200, { timeoutMs: 10_000, intervalMs: 50 });
    await pause(300);
    expect(said('database unreachable')).toHaveLength(1);
    expect(said('database unreachable')[0]).toMatchObject({ level: 40, context: 'Database', err: expect.any(String) });
    expect(said('database reachable again')).toHaveLength(1);
    expect(said('database reachable again')[0]).toMatchObject({ level: 30, failures: expect.any(Number), downSeconds: expect.any(Number) });
    expect(said('database reachable again')[0].failures as number).toBeGreaterThan(answers.length);
    // Nothing else says it again: no loop's own warning, no line per refused request beyond its request line.
    const others = lines.filter((line) => line.msg !== 'request' && (line.level as number) >= 40 && line.msg !== 'database unreachable');
    expect(others).toEqual([]);
    expect(await reachableGauge()).toBe(1);
    expect((await request(t.server).get('/v1/sessions/reach').set(bearer(KEYS.read))).status).toBe(200);
  });
});
