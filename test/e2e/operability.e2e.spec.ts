import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { metricValue, scrapeMetric } from '../support/metrics.js';
import { pollUntil } from '../support/poll.js';

const lines: Record<string, unknown>[] = [];
const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ LOG_LEVEL: 'info' }, { log });
});
afterAll(async () => {
  await t.close();
});

describe('operational metrics', () => {
  it('counts requests by route template and status, never by raw path', async () => {
    await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'ops-1' });
    await request(t.server).get('/v1/sessions/ops-1').set(bearer(KEYS.read));
    await request(t.server).get('/v1/sessions/ops-missing').set(bearer(KEYS.read));
    await request(t.server).get('/no/such/route/ops-xyz');
    const { text } = await request(t.server).get('/metrics');
    expect(metricValue(text, 'chronicle_http_requests_total{method="GET",route="/v1/sessions/:id",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(metricValue(text, 'chronicle_http_requests_total{method="GET",route="/v1/sessions/:id",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(metricValue(text, 'chronicle_http_requests_total{method="POST",route="/v1/sessions",status="201"}')).toBe(1);
    expect(text).toContain('route="(unmatched)"');
    expect(text).not.toContain('ops-xyz');
    expect(text).toMatch(/^chronicle_http_request_duration_seconds_bucket\{le="0.001",method="GET",route="\/v1\/sessions\/:id",status="200"\}/m);
  });

  it('shows the database pool and the open live streams', async () => {
    const { text } = await request(t.server).get('/metrics');
    expect(metricValue(text, 'chronicle_db_pool_connections{state="total"}')).toBeGreaterThan(0);
    expect(metricValue(text, 'chronicle_db_pool_connections{state="waiting"}')).toBe(0);
    expect(metricValue(text, 'chronicle_live_streams')).toBe(0);
  });

  it('counts an open live stream while it is open, and not after its client left', async () => {
    await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'ops-live' });
    const server = t.app.getHttpServer() as http.Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = http.get(`http://127.0.0.1:${port}/v1/sessions/ops-live/live`, { headers: bearer(KEYS.read) });
    client.on('error', () => undefined);
    const response = await new Promise<http.IncomingMessage>((resolve) => client.on('response', resolve));
    expect(response.statusCode).toBe(200);
    const streams = () => scrapeMetric(t.server, 'chronicle_live_streams');
    expect(await streams()).toBe(1);
    client.destroy();
    await pollUntil('no open live stream counted', streams, (open) => open === 0);
  });
});

describe('recovery decisions', () => {
  it('are logged with session, run, cause and decision, and counted', async () => {
    const submittedAt = Date.now() / 1000 - 120;
    await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'ops-rec' });
    await request(t.server).post('/v1/sessions/ops-rec/submissions').set(bearer(KEYS.ingest)).send({ runId: 'ops-rec-run', text: 'hi', submittedAt });
    const sweep = await request(t.server).post('/v1/recovery/sweep').set(bearer(KEYS.admin)).send({});
    expect(sweep.body).toMatchObject({ interrupted: 1 });
    expect(lines.filter((line) => line.msg === 'recovery decision')).toEqual([
      expect.objectContaining({
        level: 30,
        context: 'Recovery',
        sessionId: 'ops-rec',
        runId: 'ops-rec-run',
        cause: 'lost_worker_bookkeeping',
        decision: 'TurnInterrupted',
      }),
    ]);
    const { text } = await request(t.server).get('/metrics');
    expect(metricValue(text, 'chronicle_recovery_decisions_total{decision="TurnInterrupted",cause="lost_worker_bookkeeping"}')).toBe(1);
  });
});
