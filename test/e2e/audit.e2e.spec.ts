import pg from 'pg';
import request from 'supertest';
import { queryAcrossSessions } from '#event-store';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';
import { pollUntil } from '../support/poll.js';

let t: TestApp;
let pool: pg.Pool;
beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_SNAPSHOT_EVERY: '2', CHRONICLE_PROJECTOR_INTERVAL_MS: '50' });
  pool = new pg.Pool({ connectionString: t.database.url, max: 2 });
  for (const sessionId of ['au-1', 'au-2', 'au-3']) {
    await api.startSession(sessionId, { title: `Audit ${sessionId}`, createdAt: 1 });
    for (let i = 0; i < 3; i++) {
      await api.recordMessages(sessionId, [
        { role: 'user', content: `q${i}`, timestamp: 10 + 2 * i },
        { role: 'assistant', content: `a${i}`, timestamp: 11 + 2 * i },
      ]);
    }
  }
  const count = async (sql: string): Promise<number> => (await queryAcrossSessions(pool, { text: sql })).rows[0].n;
  await pollUntil('the three sessions indexed at version 4', () => count(`SELECT count(*)::int AS n FROM session_index WHERE version = 4`), (n) => n === 3);
  await pollUntil('three snapshots', () => count(`SELECT count(*)::int AS n FROM session_snapshots`), (n) => n >= 3);
});
afterAll(async () => {
  await pool.end();
  await t.close();
});

const api = ingestClient(() => t.server);
const { admin } = api;

describe('POST /v1/sessions/{id}/audit', () => {
  it('answers a match with equal hashes for a session written through the API', async () => {
    const res = await admin('/v1/sessions/au-1/audit');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sessionId: 'au-1',
      version: 4,
      storedHash: res.body.replayedHash,
      replayedHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      match: true,
      chain: { ok: true, firstBrokenVersion: null },
      differences: [],
    });
    const transcript = await request(t.server).get('/v1/sessions/au-1/transcript').set(bearer(KEYS.read));
    expect(transcript.body.hash).toBe(res.body.replayedHash);
  });

  it('names the broken version of an event edited in the database', async () => {
    await pool.query(`UPDATE events SET data = jsonb_set(data::jsonb, '{title}', '"Forged"') WHERE stream_id = 'session-au-3' AND version = 1`);
    const res = await admin('/v1/sessions/au-3/audit');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ match: false, chain: { ok: false, firstBrokenVersion: 1 } });
  });

  it('is 404 for a session never started and 400 for a bad id', async () => {
    const missing = await admin('/v1/sessions/nobody/audit');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('SESSION_NOT_FOUND');
    expect((await admin('/v1/sessions/bad%20id/audit')).status).toBe(400);
  });

  it('needs an admin key', async () => {
    expect((await request(t.server).post('/v1/sessions/au-1/audit')).status).toBe(401);
    const res = await request(t.server).post('/v1/sessions/au-1/audit').set(bearer(KEYS.read));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});

describe('POST /v1/audit', () => {
  it('answers the contract: once every session is audited, { sessions, mismatches, eventsReplayed, seconds } (and the job it ran as)', async () => {
    const res = await admin('/v1/audit');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sessions: 3,
      mismatches: [expect.objectContaining({ sessionId: 'au-3', chain: { ok: false, firstBrokenVersion: 1 } })],
      eventsReplayed: 12,
      seconds: expect.any(Number),
      jobId: expect.any(String),
    });
    expect(res.headers.location).toBe(`/v1/audit/${res.body.jobId}`);
    const job = (await request(t.server).get(`/v1/audit/${res.body.jobId}`).set(bearer(KEYS.admin))).body;
    expect(job).toMatchObject({ status: 'completed', result: { sessions: 3, eventsReplayed: 12 } });
  });

  it('with Prefer: respond-async, answers 202 with the job at once and lists the mismatches at its end', async () => {
    const res = await admin('/v1/audit').set('Prefer', 'wait=10, respond-async');
    expect(res.status).toBe(202);
    expect(res.headers['preference-applied']).toBe('respond-async');
    const job = await pollUntil(
      'the audit job to finish',
      async () => (await request(t.server).get(`/v1/audit/${res.body.jobId}`).set(bearer(KEYS.admin))).body,
      (body) => body.status !== 'running',
    );
    expect(job.status).toBe('completed');
    expect(job.result).toEqual({
      sessions: 3,
      mismatches: [expect.objectContaining({ sessionId: 'au-3', chain: { ok: false, firstBrokenVersion: 1 } })],
      eventsReplayed: 12,
      seconds: expect.any(Number),
    });
  });

  it('needs an admin key', async () => {
    expect((await request(t.server).post('/v1/audit').set(bearer(KEYS.ingest))).status).toBe(403);
  });
});

describe('POST /v1/projections/{name}/rebuild', () => {
  it('rebuilds the session index from the log while the list keeps answering', async () => {
    await pool.query(`UPDATE session_index SET title = 'tampered' WHERE stream_id = 'session-au-2'`);
    const res = await admin('/v1/projections/session_index/rebuild');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'session_index', rows: 3, eventsReplayed: 12 });
    const list = await request(t.server).get('/v1/sessions').set(bearer(KEYS.read));
    expect(list.status).toBe(200);
    expect(list.body.items.find((s: { sessionId: string }) => s.sessionId === 'au-2').title).toBe('Audit au-2');
  });

  it('is 404 PROJECTION_NOT_FOUND for an unknown projection', async () => {
    const res = await admin('/v1/projections/nonsense/rebuild');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body.code).toBe('PROJECTION_NOT_FOUND');
  });

  it('is 409 REBUILD_IN_PROGRESS while another replica holds the rebuild', async () => {
    const other = await pool.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(727102, hashtext('session_index'))`);
      const res = await admin('/v1/projections/session_index/rebuild');
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('REBUILD_IN_PROGRESS');
    } finally {
      await other.query(`SELECT pg_advisory_unlock(727102, hashtext('session_index'))`);
      other.release();
    }
  });

  it('needs an admin key', async () => {
    expect((await request(t.server).post('/v1/projections/session_index/rebuild')).status).toBe(401);
    expect((await request(t.server).post('/v1/projections/session_index/rebuild').set(bearer(KEYS.read))).status).toBe(403);
  });
});
