import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const metricValue = (text: string, line: RegExp): number | null => {
  const match = text.split('\n').find((l) => line.test(l));
  return match ? Number(match.split(' ').at(-1)) : null;
};

describe('operational metrics', () => {
  it('counts requests by route template and status, never by raw path', async () => {
    await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'ops-1' });
    await request(t.server).get('/v1/sessions/ops-1').set(bearer(KEYS.read));
    await request(t.server).get('/v1/sessions/ops-missing').set(bearer(KEYS.read));
    await request(t.server).get('/no/such/route/ops-xyz');
    const { text } = await request(t.server).get('/metrics');
    expect(metricValue(text, /^chronicle_http_requests_total\{method="GET",route="\/v1\/sessions\/:id",status="200"\}/)).toBeGreaterThanOrEqual(1);
    expect(metricValue(text, /^chronicle_http_requests_total\{method="GET",route="\/v1\/sessions\/:id",status="404"\}/)).toBeGreaterThanOrEqual(1);
    expect(metricValue(text, /^chronicle_http_requests_total\{method="POST",route="\/v1\/sessions",status="201"\}/)).toBe(1);
    expect(text).toContain('route="(unmatched)"');
    expect(text).not.toContain('ops-xyz');
    expect(text).toMatch(/^chronicle_http_request_duration_seconds_bucket\{le="0.001",method="GET",route="\/v1\/sessions\/:id",status="200"\}/m);
  });

  it('shows the database pool and the open live streams', async () => {
    const { text } = await request(t.server).get('/metrics');
    expect(metricValue(text, /^chronicle_db_pool_connections\{state="total"\}/)).toBeGreaterThan(0);
    expect(metricValue(text, /^chronicle_db_pool_connections\{state="waiting"\}/)).toBe(0);
    expect(metricValue(text, /^chronicle_live_streams /)).toBe(0);
  });
});
