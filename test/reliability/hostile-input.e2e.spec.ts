import fc from 'fast-check';
import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';
import type { ZodType } from 'zod';
import { hostStartedBody, leaseBody, streamBody } from '../../apps/session-api/src/recovery/recovery.schemas.js';
import { startSessionBody } from '../../apps/session-api/src/sessions/sessions.controller.js';
import { hostileBody, type RawBody } from './support/hostile-bodies.js';
import { SCALE, SUITE_TIMEOUT_MS } from './support/scale.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  const api = ingestClient(() => t.server);
  await api.startSession('h', { createdAt: 1 });
  await api.submit('h', { runId: 'r', text: 'q', submittedAt: 2 });
});
afterAll(async () => {
  await t.close();
});

/**
 * Routes with few or optional fields: a generated body their schema accepts (`{}` for a start,
 * `{"startedAt":0}` for a host) is a valid request, not a hostile one.
 */
const SCHEMAS: Readonly<Record<string, ZodType>> = {
  '/v1/sessions': startSessionBody,
  '/v1/hosts/host-1/started': hostStartedBody,
  '/v1/runs/r/lease': leaseBody,
  '/v1/runs/r/stream': streamBody,
};
const isValidFor = (path: string, body: RawBody) => {
  const schema = SCHEMAS[path];
  try {
    return schema !== undefined && body.contentType === 'application/json' && schema.safeParse(JSON.parse(body.text)).success;
  } catch {
    return false;
  }
};

const stored = () => t.storedEvents();

/** Every ingestion route of the contract, with its own fields (where the hostile values go). */
const ROUTES: [string, string, string[]][] = [
  ['POST', '/v1/sessions', ['sessionId', 'title', 'parentSessionId', 'createdAt']],
  ['POST', '/v1/sessions/h/messages', ['rows', 'expectedVersion']],
  ['POST', '/v1/sessions/h/submissions', ['runId', 'text', 'attachments', 'source', 'submittedAt']],
  ['POST', '/v1/sessions/h/runs/r/settle', ['rows', 'settledAt']],
  ['POST', '/v1/sessions/h/runs/r/journal', ['events']],
  ['POST', '/v1/sessions/h/state-rows', ['rows', 'observedAt']],
  ['POST', '/v1/sessions/h/truncate', ['keepCount', 'reason', 'at']],
  ['POST', '/v1/sessions/h/compress', ['childSessionId', 'at']],
  ['POST', '/v1/hosts/host-1/started', ['startedAt']],
  ['PUT', '/v1/runs/r/lease', ['sessionId', 'hostId', 'ttlSeconds', 'phase']],
  ['PUT', '/v1/runs/r/stream', ['sessionId']],
];

describe('hostile bodies on every ingestion route', () => {
  it.each(ROUTES)(
    '%s %s answers each with a 4xx problem, in time, and stores nothing',
    async (method, path, fields) => {
      await fc.assert(
        fc.asyncProperty(hostileBody(fields), async (body) => {
          fc.pre(!isValidFor(path, body));
          const before = await stored();
          const res = await request(t.server)[method === 'PUT' ? 'put' : 'post'](path)
            .set(bearer(KEYS.admin))
            .set('Content-Type', body.contentType)
            .timeout(10_000)
            .send(body.text);
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          expect(res.headers['content-type']).toContain('application/problem+json');
          expect(await stored()).toBe(before);
        }),
        { numRuns: SCALE.fuzzRuns },
      );
    },
    SUITE_TIMEOUT_MS,
  );
});

describe('valid bodies holding SQL fragments and markup', () => {
  const text = `'; DROP TABLE events; -- <script>alert("x")</script> \u202e $$ \\' OR 1=1`;
  it('are stored and returned verbatim', async () => {
    const start = await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'verbatim', title: text, createdAt: 1 });
    expect(start.status).toBe(201);
    await request(t.server).post('/v1/sessions/verbatim/submissions').set(bearer(KEYS.ingest)).send({ runId: 'v1', text, submittedAt: 2 }).expect(200);
    const payload = { text, args: { query: text }, already_streamed: false };
    await request(t.server)
      .post('/v1/sessions/verbatim/runs/v1/journal')
      .set(bearer(KEYS.ingest))
      .send({ events: [{ seq: 1, event: 'token', payload, createdAt: 3 }] })
      .expect((res) => expect(res.status).toBeLessThan(300));
    const journal = await request(t.server).get('/v1/sessions/verbatim/runs/v1/journal').set(bearer(KEYS.read));
    expect(journal.body.events[0].payload).toEqual(payload);
    const summary = await request(t.server).get('/v1/sessions/verbatim').set(bearer(KEYS.read));
    expect([summary.body.title, summary.body.pendingTurn.text]).toEqual([text, text]);
    const transcript = await request(t.server).get('/v1/sessions/verbatim/transcript').set(bearer(KEYS.read));
    expect(transcript.body.messages.map((m: { content: unknown }) => m.content)).toContain(text);
  });
});
