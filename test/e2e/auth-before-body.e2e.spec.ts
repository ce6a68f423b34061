import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';

// Regression (issue 12, defect 5): without a key, a bad JSON body answered 400 and an oversized one 413, before
// the 401 the contract promises. Authentication now runs before the body is read.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_BODY_LIMIT_BYTES: '1024' });
});
afterAll(async () => {
  await t.close();
});

const oversized = JSON.stringify({ rows: [{ role: 'user', content: 'x'.repeat(4096) }] });
const post = (headers: Record<string, string>, body: string) =>
  request(t.server).post('/v1/sessions/s/messages').set(headers).set('Content-Type', 'application/json').send(body);

describe('a request to a keyed route', () => {
  it.each([
    ['no key', {}],
    ['a malformed Authorization header', { Authorization: 'Basic abc' }],
    ['an unknown key', bearer('nobody')],
  ])('with %s is a 401 whatever its body: malformed JSON, oversized, wrong media type', async (_name, headers) => {
    for (const res of [
      await post(headers, '{"rows":[{'),
      await post(headers, oversized),
      await request(t.server).post('/v1/sessions/s/messages').set(headers).set('Content-Type', 'text/plain').send('hi'),
    ]) {
      expect([res.status, res.body.code]).toEqual([401, 'UNAUTHENTICATED']);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
    }
  });

  it('with a key lacking the scope is a 403 whatever its body', async () => {
    for (const res of [await post(bearer(KEYS.read), '{"rows":[{'), await post(bearer(KEYS.read), oversized)]) {
      expect([res.status, res.body.code]).toEqual([403, 'FORBIDDEN']);
    }
  });

  it('with a valid key still gets the body answers: 400 for malformed JSON, 413 for an oversized body', async () => {
    expect((await post(bearer(KEYS.ingest), '{"rows":[{')).status).toBe(400);
    const tooLarge = await post(bearer(KEYS.ingest), oversized);
    expect([tooLarge.status, tooLarge.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });
});

describe('the rate limit, decided before the body too', () => {
  it('takes one token per request and answers 429 with Retry-After past the limit, whatever the body', async () => {
    const limited = await startTestApp({}, { keys: `limited:ingest@2` });
    try {
      const send = () => request(limited.server).post('/v1/sessions').set(bearer('limited')).set('Content-Type', 'application/json').send('{bad');
      expect([(await send()).status, (await send()).status]).toEqual([400, 400]);
      const third = await send();
      expect([third.status, third.body.code]).toEqual([429, 'RATE_LIMITED']);
      expect(third.body.detail).toContain('limit 2 per minute');
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
