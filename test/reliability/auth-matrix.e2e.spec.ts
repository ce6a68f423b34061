import pino from 'pino';
import request from 'supertest';
import { RouteTable, type Scope } from '#platform';
import { routeAccessLookup } from '../../apps/session-api/src/route-access.js';
import { KEYS, startTestApp, type TestApp } from '../support/app.js';

// Every level, trace included: no line may carry a key, whatever is logged.
const lines: string[] = [];
const log = pino({ level: 'trace', name: 'chronicle' }, { write: (line: string) => void lines.push(line) });

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ LOG_LEVEL: 'trace' }, { log });
});
afterAll(async () => {
  await t.close();
});

const CREDENTIALS: [string, Record<string, string>, Scope | 'none'][] = [
  ['no key', {}, 'none'],
  ['a malformed header', { Authorization: `Token ${KEYS.admin}` }, 'none'],
  ['an empty bearer', { Authorization: 'Bearer ' }, 'none'],
  ['an unknown key', { Authorization: 'Bearer not-a-known-key-0123' }, 'none'],
  ['the ingest key', { Authorization: `Bearer ${KEYS.ingest}` }, 'ingest'],
  ['the read key', { Authorization: `Bearer ${KEYS.read}` }, 'read'],
  ['the admin key', { Authorization: `Bearer ${KEYS.admin}` }, 'admin'],
];
const BODIES: [string, string][] = [
  ['a valid-looking body', '{}'],
  ['malformed JSON', '{"rows":['],
];

describe('the auth matrix: every /v1 route of the router × every credential × valid and invalid bodies', () => {
  it('answers 401 without a known key, 403 without the scope, and neither with it', async () => {
    const lookup = routeAccessLookup(t.app);
    const routes = t.app.get(RouteTable).routes.filter(({ method, url }) => url.startsWith('/v1/') && method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const { method, url } of routes) {
      const access = lookup(method, url);
      if (!access || access.public) {
        wrong.push(`${method} ${url} is not keyed`);
        continue;
      }
      // `nobody` as every id: a session that does not exist, so no route does real work or streams.
      const path = url.replace(/:(\w+)/g, 'nobody');
      for (const [who, headers, scope] of CREDENTIALS) {
        for (const [what, body] of BODIES) {
          const call = request(t.server)[method.toLowerCase() as 'post'](path).set(headers).timeout(10_000);
          const res = method === 'GET' || method === 'DELETE' ? await call : await call.set('Content-Type', 'application/json').send(body);
          const allowed = scope === 'admin' || scope === access.scope;
          const expected = scope === 'none' ? '401' : allowed ? 'neither 401 nor 403' : '403';
          const got = res.status === 401 || res.status === 403 ? String(res.status) : res.status < 500 ? 'neither 401 nor 403' : `5xx ${res.status}`;
          if (got !== expected) wrong.push(`${method} ${url} with ${who} and ${what}: ${res.status}, expected ${expected}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('writes no key value into any log line', () => {
    expect(lines.length).toBeGreaterThan(100);
    const secrets = [KEYS.admin, KEYS.ingest, KEYS.read, 'not-a-known-key-0123'];
    expect(lines.filter((line) => secrets.some((secret) => line.includes(secret)))).toEqual([]);
  });
});
