import request from 'supertest';
import { RouteTable } from '#platform';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';

// Issue 27, item 6: a path id that is not valid percent-encoding was answered by Fastify's router, before any
// hook, with its own { statusCode, code, error, message } body instead of a problem.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  const api = ingestClient(() => t.server);
  await api.startSession('ok', { createdAt: 1 });
  await api.submit('ok', { runId: 'run', text: 'q', submittedAt: 2 });
});
afterAll(async () => {
  await t.close();
});

/** A body each ingestion route accepts, so only the path can be what is refused. */
const VALID_BODIES: Readonly<Record<string, object>> = {
  '/v1/sessions/:id/messages': { rows: [{ role: 'user', content: 'x', timestamp: 3 }] },
  '/v1/sessions/:id/submissions': { runId: 'run-2', text: 'q', submittedAt: 3 },
  '/v1/sessions/:id/runs/:runId/settle': { rows: [{ role: 'user', content: 'q', timestamp: 2 }], settledAt: 3 },
  '/v1/sessions/:id/runs/:runId/journal': { events: [{ seq: 1, event: 'token', payload: { text: 'a' }, createdAt: 3 }] },
  '/v1/sessions/:id/state-rows': { rows: [{ rowId: 1, role: 'user', content: 'q' }], observedAt: 3 },
  '/v1/sessions/:id/truncate': { keepCount: 0, reason: 'clear', at: 3 },
  '/v1/sessions/:id/compress': { childSessionId: 'child', at: 3 },
  '/v1/hosts/:hostId/started': { startedAt: 3 },
  '/v1/runs/:runId/lease': { sessionId: 'ok', hostId: 'host', ttlSeconds: 30 },
  '/v1/runs/:runId/stream': { sessionId: 'ok' },
};

/** Every /v1 route of the router with a path parameter, once per parameter. */
function routeParameters(): [string, string, string][] {
  return t.app
    .get(RouteTable)
    .routes.filter(({ method, url }) => url.startsWith('/v1/') && url.includes('/:') && method !== 'HEAD')
    .flatMap(({ method, url }) => [...url.matchAll(/:(\w+)/g)].map(([, name]): [string, string, string] => [method, url, name]));
}

const send = (method: string, url: string, path: string) => {
  const call = request(t.server)[method.toLowerCase() as 'post'](path).set(bearer(KEYS.admin)).timeout(10_000);
  return method === 'GET' || method === 'DELETE' ? call : call.send(VALID_BODIES[url] ?? {});
};

describe('a path parameter that is not valid percent-encoding', () => {
  it('is a 400 problem naming the parameter on every route that has one, and nothing is stored', async () => {
    const cases = routeParameters();
    const ingestion = cases.filter(([method]) => method !== 'GET').map(([method, url]) => `${method} ${url}`);
    expect(ingestion).toEqual(expect.arrayContaining(Object.keys(VALID_BODIES).map((url) => expect.stringContaining(url))));
    const before = await t.storedEvents();
    const wrong: string[] = [];
    for (const [method, url, name] of cases) {
      for (const bad of ['%ZZ', 'a%', '%E0%A4%A']) {
        const path = url.replace(/:(\w+)/g, (_, param: string) => (param === name ? bad : param === 'id' ? 'ok' : 'run'));
        const res = await send(method, url, path);
        const got = { status: res.status, type: res.headers['content-type'], code: res.body.code, errors: res.body.errors };
        const expected = {
          status: 400,
          type: 'application/problem+json; charset=utf-8',
          code: 'VALIDATION_FAILED',
          errors: [{ path: name, message: 'malformed percent-encoding' }],
        };
        if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${method} ${path}: ${res.status} ${res.text}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await t.storedEvents()).toBe(before);
  });

  it('answers the problem with its detail and a request id, after authentication', async () => {
    const res = await request(t.server).post('/v1/sessions/%ZZ/messages').set(bearer(KEYS.ingest)).send(VALID_BODIES['/v1/sessions/:id/messages']);
    expect(res.body).toEqual({
      type: 'https://chronicle.dev/problems/validation-failed',
      title: 'Bad Request',
      status: 400,
      detail: 'The path parameter id is not valid percent-encoding.',
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'id', message: 'malformed percent-encoding' }],
    });
    expect(res.headers['x-request-id']).toBeTruthy();
    const anonymous = await request(t.server).post('/v1/sessions/%ZZ/messages').send({ rows: [] });
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('names both parameters when both are malformed, and leaves a path no route matches to the 404', async () => {
    const both = await request(t.server).post('/v1/sessions/%ZZ/runs/%ZZ/journal').set(bearer(KEYS.ingest)).send({ events: [] });
    expect(both.body.errors).toEqual([
      { path: 'id', message: 'malformed percent-encoding' },
      { path: 'runId', message: 'malformed percent-encoding' },
    ]);
    const nowhere = await request(t.server).get('/v1/nothing/%ZZ').set(bearer(KEYS.read));
    expect([nowhere.status, nowhere.body.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
  });

  it('leaves valid escapes as they were: an id spelled in escapes is the id', async () => {
    const res = await request(t.server).get('/v1/sessions/%6Fk').set(bearer(KEYS.read));
    expect([res.status, res.body.sessionId]).toEqual([200, 'ok']);
    const notAnId = await request(t.server).get('/v1/sessions/%25ZZ').set(bearer(KEYS.read));
    expect(notAnId.body.errors).toEqual([{ path: 'id', message: 'must match [A-Za-z0-9_.:-]{1,128}' }]);
  });
});
