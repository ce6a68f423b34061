import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('POST /v1/sessions', () => {
  it('starts a session (201) and answers a repeat as a duplicate (200)', async () => {
    const first = await request(t.server)
      .post('/v1/sessions')
      .set(bearer(KEYS.ingest))
      .send({ sessionId: 'start-1', title: 'First', createdAt: 1779309765 });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ sessionId: 'start-1', version: 1, appended: 1, duplicate: false });

    const again = await request(t.server)
      .post('/v1/sessions')
      .set(bearer(KEYS.ingest))
      .send({ sessionId: 'start-1', title: 'First', createdAt: 1779309765 });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ sessionId: 'start-1', version: 1, appended: 0, duplicate: true });
  });

  it('refuses to recreate a session with another title (409) and stores nothing', async () => {
    await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'start-2', title: 'First' });
    const other = await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'start-2', title: 'Second' });
    expect([other.status, other.body.code]).toEqual([409, 'SESSION_ALREADY_EXISTS']);
    const events = await request(t.server).get('/v1/sessions/start-2/events').set(bearer(KEYS.read));
    expect(events.body.items).toHaveLength(1);
  });

  it('generates a session id when none is given', async () => {
    const res = await request(t.server).post('/v1/sessions').set(bearer(KEYS.admin)).send({});
    expect(res.status).toBe(201);
    expect(res.body.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('names every bad field in a problem-details 400 and stores nothing', async () => {
    const res = await request(t.server)
      .post('/v1/sessions')
      .set(bearer(KEYS.ingest))
      .send({ sessionId: 'bad id', title: 5, createdAt: 'yesterday', extra: true });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(
      ['createdAt', 'extra', 'sessionId', 'title'].sort(),
    );
    const events = await request(t.server).get('/v1/sessions/bad%20id/events').set(bearer(KEYS.read));
    expect(events.status).toBe(400);
  });

  it('answers malformed JSON with a 400 problem', async () => {
    const res = await request(t.server)
      .post('/v1/sessions')
      .set(bearer(KEYS.ingest))
      .set('Content-Type', 'application/json')
      .send('{"sessionId": ');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors).toEqual([{ path: '(body)', message: expect.stringContaining('malformed JSON') }]);
  });
});

describe('auth', () => {
  it('answers 401 without a key and with an unknown key', async () => {
    const none = await request(t.server).post('/v1/sessions').send({});
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHENTICATED');
    const unknown = await request(t.server).post('/v1/sessions').set(bearer('nope')).send({});
    expect(unknown.status).toBe(401);
  });

  it('answers 403 when the key lacks the scope', async () => {
    const res = await request(t.server).post('/v1/sessions').set(bearer(KEYS.read)).send({});
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});

describe('GET /v1/sessions/{id}/events', () => {
  it('pages through the stream with after/limit', async () => {
    await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'events-1', title: 'E' });
    const res = await request(t.server).get('/v1/sessions/events-1/events?after=0&limit=10').set(bearer(KEYS.read));
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({ version: 1, type: 'SessionStarted', data: { sessionId: 'events-1', title: 'E' } });
    expect(res.body.nextAfter).toBeNull();
  });

  it('answers 404 SESSION_NOT_FOUND for a session never started', async () => {
    const res = await request(t.server).get('/v1/sessions/never/events').set(bearer(KEYS.read));
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('SESSION_NOT_FOUND');
  });

  it('validates the query', async () => {
    const res = await request(t.server).get('/v1/sessions/events-1/events?limit=0&after=-1').set(bearer(KEYS.read));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['query.after', 'query.limit']);
  });
});

describe('operations routes', () => {
  it('reports live and ready without a key', async () => {
    expect((await request(t.server).get('/health/live')).status).toBe(200);
    const ready = await request(t.server).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.info.migrations.status).toBe('up');
  });

  it('exposes Prometheus metrics', async () => {
    const res = await request(t.server).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('chronicle_append_duration_seconds');
  });
});

describe('the HTTP edge', () => {
  it('reads an empty JSON body as {} and a +json media type as JSON', async () => {
    const empty = await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).set('Content-Type', 'application/json').send('');
    expect(empty.status).toBe(201);
    const suffixed = await request(t.server)
      .post('/v1/sessions')
      .set(bearer(KEYS.ingest))
      .set('Content-Type', 'application/vnd.chronicle+json; charset=utf-8')
      .send(JSON.stringify({ sessionId: 'edge-json', createdAt: 1 }));
    expect([suffixed.status, suffixed.body.sessionId]).toEqual([201, 'edge-json']);
  });

  it('answers a body that is not JSON with a 415 problem and stores nothing', async () => {
    const res = await request(t.server)
      .post('/v1/sessions')
      .set(bearer(KEYS.ingest))
      .set('Content-Type', 'text/plain')
      .send('{"sessionId":"edge-text"}');
    expect([res.status, res.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect((await request(t.server).get('/v1/sessions/edge-text').set(bearer(KEYS.read))).status).toBe(404);
  });

  it('names a __proto__ key beside the body fields as an unknown field, like any other, and stores nothing', async () => {
    const res = await request(t.server)
      .post('/v1/sessions')
      .set(bearer(KEYS.ingest))
      .set('Content-Type', 'application/json')
      .send('{"sessionId":"edge-proto","__proto__":{"admin":true}}');
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(res.body.errors).toEqual([{ path: '__proto__', message: 'unknown field' }]);
    expect((await request(t.server).get('/v1/sessions/edge-proto').set(bearer(KEYS.read))).status).toBe(404);
  });

  it('routes ids up to the id limit and names a longer one in a 400, not a router 414', async () => {
    const longest = 'i'.repeat(128);
    expect((await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: longest })).status).toBe(201);
    expect((await request(t.server).get(`/v1/sessions/${longest}`).set(bearer(KEYS.read))).status).toBe(200);
    const tooLong = await request(t.server).get(`/v1/sessions/${'i'.repeat(129)}`).set(bearer(KEYS.read));
    expect([tooLong.status, tooLong.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('ignores a trailing slash and answers an unknown route with a 404 problem', async () => {
    expect((await request(t.server).get('/health/live/')).status).toBe(200);
    const res = await request(t.server).get('/v2/nothing');
    expect([res.status, res.body.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });
});
