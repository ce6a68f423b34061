import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../../../test/support/app.js';
import { runIn } from './cli-test.fixture.js';

/** Issue 11 item 10: `chronicle export` writes each event's recordedAt as the HTTP API answers it. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('chronicle export beside GET /v1/sessions/{id}/events', () => {
  it('writes the same recordedAt (epoch seconds) for every event', async () => {
    const ingest = (path: string, body: object) => request(t.server).post(path).set(bearer(KEYS.ingest)).send(body).expect(200);
    await request(t.server).post('/v1/sessions').set(bearer(KEYS.ingest)).send({ sessionId: 'exp-1', createdAt: 1 }).expect(201);
    await ingest('/v1/sessions/exp-1/messages', { rows: [{ role: 'user', content: 'q', timestamp: 2 }] });
    await ingest('/v1/sessions/exp-1/submissions', { runId: 'r1', text: 'next', submittedAt: 3 });

    const api = (await request(t.server).get('/v1/sessions/exp-1/events').set(bearer(KEYS.read)).expect(200)).body.items as { version: number; recordedAt: number }[];
    const exported = await runIn(t.database.url, ['export', '--session', 'exp-1']);
    expect(exported.code).toBe(0);
    const lines = exported.stdout.trim().split('\n').map((line) => JSON.parse(line) as { version: number; recordedAt: unknown });

    expect(api).toHaveLength(3);
    expect(lines.map(({ version, recordedAt }) => ({ version, recordedAt }))).toEqual(api.map(({ version, recordedAt }) => ({ version, recordedAt })));
    expect(typeof lines[0].recordedAt).toBe('number');
  });
});
