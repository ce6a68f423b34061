import { Reflector } from '@nestjs/core';
import request from 'supertest';
import { accessOf, RouteTable } from '#platform';
import { nestRoutes, normaliseRoutePath as join } from '../../apps/session-api/src/http/nest-routes.js';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** Routes Fastify holds that no Nest controller declares: Swagger's UI, its assets, the JSON and YAML, and the admin dashboard's static files. All public. */
const PUBLIC_OUTSIDE_NEST = /^\/(docs(-yaml)?|admin)(\/|$)/;

/** Every controller method Nest mapped, by `METHOD /path` as Fastify spells it. */
const nestHandlers = () => new Map(nestRoutes(t.app).map((route) => [`${route.method} ${route.path}`, route]));

describe('every route is closed unless it says otherwise', () => {
  it('finds each route of the running router public or scoped, naming any that is neither', () => {
    const routes = t.app.get(RouteTable).routes;
    const handlers = nestHandlers();
    const reflector = new Reflector();
    expect(routes.length).toBeGreaterThan(20);
    const offending: string[] = [];
    const seen = { public: new Set<string>(), scoped: new Set<string>() };
    for (const { method, url } of routes) {
      const path = join(url);
      const route = `${method} ${path}`;
      const found = handlers.get(route) ?? (method === 'HEAD' ? handlers.get(`GET ${path}`) : undefined);
      if (!found) {
        if (PUBLIC_OUTSIDE_NEST.test(path)) seen.public.add(route);
        else offending.push(`${route} (not a Nest route, not in the public list)`);
        continue;
      }
      const access = accessOf(reflector, found.handler, found.controller);
      if (access.public) seen.public.add(route);
      else if (access.scope) seen.scoped.add(route);
      else offending.push(`${route} (neither @Public() nor @RequireScope())`);
    }
    expect(offending).toEqual([]);
    expect([...seen.public].filter((route) => route.startsWith('GET '))).toEqual(
      expect.arrayContaining(['GET /health/live', 'GET /health/ready', 'GET /metrics', 'GET /docs', 'GET /docs/openapi.json']),
    );
    expect([...seen.public].filter((route) => route.includes('/v1/'))).toEqual([]);
    expect(seen.scoped).toContain('POST /v1/sessions');
  });

  it('answers the public routes without a key and every /v1 route only with one', async () => {
    for (const path of ['/health/live', '/metrics', '/docs/openapi.json']) {
      expect([path, (await request(t.server).get(path)).status]).toEqual([path, 200]);
    }
    const v1 = t.app
      .get(RouteTable)
      .routes.filter(({ method, url }) => url.startsWith('/v1/') && method !== 'HEAD');
    for (const { method, url } of v1) {
      const path = url.replace(/:(\w+)/g, 'x');
      const res = await request(t.server)[method.toLowerCase() as 'get'](path);
      expect([method, path, res.status]).toEqual([method, path, 401]);
    }
  });
});

describe('errors that help', () => {
  it('challenges a missing or unknown key with WWW-Authenticate: Bearer', async () => {
    const missing = await request(t.server).get('/v1/sessions');
    expect([missing.status, missing.body.code]).toEqual([401, 'UNAUTHENTICATED']);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer\b/);
    const unknown = await request(t.server).get('/v1/sessions').set(bearer('nobody'));
    expect(unknown.status).toBe(401);
    expect(unknown.headers['www-authenticate']).toMatch(/^Bearer\b.*error="invalid_token"/);
  });

  it('answers a method the path does not have with 405, Allow and a problem', async () => {
    const res = await request(t.server).delete('/v1/sessions').set(bearer(KEYS.admin));
    expect([res.status, res.body.code]).toEqual([405, 'METHOD_NOT_ALLOWED']);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.headers.allow?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
    const param = await request(t.server).patch('/v1/runs/r-1/lease');
    expect([param.status, param.headers.allow]).toEqual([405, 'PUT, DELETE']);
    const unknown = await request(t.server).delete('/v2/nothing');
    expect([unknown.status, unknown.body.code, unknown.headers.allow]).toEqual([404, 'ROUTE_NOT_FOUND', undefined]);
  });

  it('names each scope that would do once in a 403', async () => {
    const admin = await request(t.server).post('/v1/audit').set(bearer(KEYS.read));
    expect([admin.status, admin.body.detail]).toEqual([403, 'This route needs the "admin" scope.']);
    const read = await request(t.server).get('/v1/sessions').set(bearer(KEYS.ingest));
    expect([read.status, read.body.detail]).toEqual([403, 'This route needs the "read" scope (or "admin").']);
  });

  it('reports each unknown body key at its own path', async () => {
    const res = await request(t.server)
      .post('/v1/sessions')
      .set(bearer(KEYS.ingest))
      .send({ sessionId: 'acc-1', createdAt: 1_800_000_000, colour: 'red', size: 2 });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'colour', message: 'unknown field' },
        { path: 'size', message: 'unknown field' },
      ]),
    );
    expect(res.body.errors.map((e: { path: string }) => e.path)).not.toContain('(body)');
  });
});
