import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';

const DASHBOARD = 'https://dashboard.example.com';
const OTHER = 'https://evil.example.com';

describe('CORS for the listed origins (CHRONICLE_CORS_ORIGINS)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CHRONICLE_CORS_ORIGINS: `http://localhost:5173,${DASHBOARD}` });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a preflight from a listed origin with 204, without a key', async () => {
    const res = await request(t.server)
      .options('/v1/sessions/s-1/messages')
      .set('Origin', DASHBOARD)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type, if-match, idempotency-key');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(res.headers['access-control-allow-methods']).toEqual(expect.stringContaining('POST'));
    const allowed = res.headers['access-control-allow-headers'].split(', ');
    expect(allowed).toEqual(
      expect.arrayContaining(['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'Last-Event-ID']),
    );
    expect(res.headers.vary).toContain('Origin');
  });

  it('lets a listed origin read the answer, ETag and x-request-id included', async () => {
    await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'cors-1', createdAt: 1_800_000_000 });
    const res = await request(t.server).get('/v1/sessions/cors-1/transcript').set(bearer(KEYS.read)).set('Origin', DASHBOARD);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(res.headers['access-control-expose-headers'].split(', ')).toEqual(expect.arrayContaining(['ETag', 'x-request-id']));
    expect(res.headers.vary).toContain('Origin');
    // An error answer is readable by the page too.
    const refused = await request(t.server).get('/v1/sessions').set('Origin', DASHBOARD);
    expect([refused.status, refused.headers['access-control-allow-origin']]).toEqual([401, DASHBOARD]);
  });

  it('gives an origin not in the list no CORS headers, preflight or not', async () => {
    const preflight = await request(t.server)
      .options('/v1/sessions')
      .set('Origin', OTHER)
      .set('Access-Control-Request-Method', 'GET');
    expect(preflight.status).not.toBe(204);
    expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const res = await request(t.server).get('/v1/sessions').set(bearer(KEYS.read)).set('Origin', OTHER);
    expect(res.status).toBe(200);
    expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    // Origins are matched exactly: no prefix, no case folding, no trailing slash.
    const near = await request(t.server).get('/health/live').set('Origin', `${DASHBOARD}.evil.com`);
    expect(near.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends the CORS headers on the live stream too', async () => {
    await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'cors-live', createdAt: 1_800_000_000 });
    const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = request(t.server)
        .get('/v1/sessions/cors-live/live')
        .set(bearer(KEYS.read))
        .set('Origin', DASHBOARD)
        .buffer(false)
        .parse((res, callback) => {
          resolve(res.headers as Record<string, unknown>);
          (res as unknown as { destroy(): void }).destroy();
          callback(null, null);
        });
      req.end((error) => {
        if (error && !/aborted|socket hang up|ECONNRESET/i.test(String(error))) reject(error);
      });
    });
    expect(headers['content-type']).toContain('text/event-stream');
    expect(headers['access-control-allow-origin']).toBe(DASHBOARD);
  });
});

describe('CORS off (no CHRONICLE_CORS_ORIGINS)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends no CORS headers to any origin', async () => {
    const res = await request(t.server).get('/v1/sessions').set(bearer(KEYS.read)).set('Origin', DASHBOARD);
    expect(res.status).toBe(200);
    expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const preflight = await request(t.server).options('/v1/sessions').set('Origin', DASHBOARD).set('Access-Control-Request-Method', 'GET');
    expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});
