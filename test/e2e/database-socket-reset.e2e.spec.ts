import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { scrapeMetric } from '../support/metrics.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// Regression (issue 12, defect 1): the database socket's ECONNRESET was taken for the HTTP client leaving, and
// the write was never answered. Here the service reaches PostgreSQL through a proxy that resets its sockets.
let t: TestApp;
let proxy: TcpProxy;
beforeAll(async () => {
  t = await startTestApp({}, {
    connectVia: async (url) => {
      proxy = await startTcpProxy(url);
      return proxy.url;
    },
  });
  await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'rst', createdAt: 1 });
});
afterAll(async () => {
  await t.close();
  await proxy.close();
});

const disconnects = async (): Promise<number> => (await scrapeMetric(t.server, 'chronicle_client_disconnects_total')) ?? 0;

const journal = (seq: number) => ({ events: [{ seq, event: 'token', payload: { text: `t${seq}` }, createdAt: 2 }] });

describe('when the database connection is reset while a write waits for its answer', () => {
  it('answers the write 503 with Retry-After, counts no client disconnect, and the retry succeeds', async () => {
    const before = await disconnects();
    proxy.hold();
    const pending = request(t.server)
      .post('/v1/sessions/rst/runs/r1/journal')
      .set(bearer(KEYS.ingest))
      .timeout(5_000)
      .send(journal(1))
      .then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.reset();
    const res = await pending;
    expect([res.status, res.body.code]).toEqual([503, 'DATABASE_UNAVAILABLE']);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(await disconnects()).toBe(before);

    const retry = await request(t.server).post('/v1/sessions/rst/runs/r1/journal').set(bearer(KEYS.ingest)).send(journal(1));
    expect(retry.status).toBeLessThan(300);
    const stored = await request(t.server).get('/v1/sessions/rst/runs/r1/journal').set(bearer(KEYS.read));
    expect(stored.body.events.map((e: { seq: number }) => e.seq)).toEqual([1]);
  });

  it('answers a read during the reset 503 as well', async () => {
    proxy.hold();
    const pending = request(t.server).get('/v1/sessions/rst/events?after=0').set(bearer(KEYS.read)).timeout(5_000).then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.reset();
    const res = await pending;
    expect([res.status, res.headers['retry-after']]).toEqual([503, '2']);
  });
});
