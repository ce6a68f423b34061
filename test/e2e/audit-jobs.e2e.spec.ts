import type { AddressInfo } from 'node:net';
import pg from 'pg';
import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';
import { pollUntil } from '../support/poll.js';
import { dataOf, openEventStream } from '../support/server-sent-events.js';

let t: TestApp;
let pool: pg.Pool;
const SESSIONS = Array.from({ length: 12 }, (_, i) => `job-${String(i).padStart(2, '0')}`);

beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_SNAPSHOT_EVERY: '2' });
  await t.app.listen(0, '127.0.0.1');
  pool = new pg.Pool({ connectionString: t.database.url, max: 2 });
  for (const sessionId of SESSIONS) {
    await api.startSession(sessionId, { title: `Job ${sessionId}`, createdAt: 1 });
    await api.recordMessages(sessionId, [
      { role: 'user', content: 'q', timestamp: 10 },
      { role: 'assistant', content: 'a', timestamp: 11 },
    ]);
  }
});
afterAll(async () => {
  await pool.end();
  await t.close();
});

const api = ingestClient(() => t.server);
/** The job form of `POST /v1/audit` (RFC 7240 `Prefer: respond-async`): 202 with the job at once. */
const admin = () => api.admin('/v1/audit').set('Prefer', 'respond-async');
const jobOf = async (jobId: string) => (await request(t.server).get(`/v1/audit/${jobId}`).set(bearer(KEYS.admin))).body;

/** Holds the snapshots table so a job blocks on its first read of stored models, until `release`. */
async function holdSnapshots(): Promise<{ release(): Promise<void> }> {
  const client = await pool.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE session_snapshots IN ACCESS EXCLUSIVE MODE');
  return {
    async release() {
      await client.query('COMMIT');
      client.release();
    },
  };
}

/** A job's `/live` stream on a real socket, its events parsed as they arrive. */
function openJobLive(jobId: string) {
  const { port } = t.app.getHttpServer().address() as AddressInfo;
  return openEventStream(`http://127.0.0.1:${port}/v1/audit/${jobId}/live`, bearer(KEYS.admin));
}

const finished = (jobId: string) => pollUntil(`audit job ${jobId} to finish`, () => jobOf(jobId), (job) => job.status !== 'running', { timeoutMs: 10_000 });

describe('a whole-store audit job', () => {
  it('answers 202 at once, answers a second start with the running job, outlives a client that leaves, and ends with readable differences', async () => {
    await pool.query(`UPDATE session_summaries SET data = jsonb_set(data, '{title}', '"Forged"') WHERE stream_id = 'session-job-03'`);
    const held = await holdSnapshots();
    let jobId: string;
    try {
      const started = await admin();
      expect(started.status).toBe(202);
      jobId = started.body.jobId;
      expect(started.headers.location).toBe(`/v1/audit/${jobId}`);
      expect(started.body).toMatchObject({ status: 'running', alreadyRunning: false, result: null });

      const second = await admin();
      expect(second.status).toBe(202);
      expect(second.body).toMatchObject({ jobId, status: 'running', alreadyRunning: true });

      const progress = await jobOf(jobId);
      expect(progress).toMatchObject({ jobId, status: 'running', finishedAt: null, progress: { sessions: 0, events: 0 } });

      const live = openJobLive(jobId);
      await pollUntil('a progress event', () => live.events.some((event) => event.event === 'progress'));
      live.close();
      expect(live.text()).toContain('"status":"running"');
    } finally {
      await held.release();
    }
    const done = await finished(jobId);
    expect(done).toMatchObject({
      status: 'completed',
      progress: { sessions: 12, totalSessions: 12, events: 24, totalEvents: 24, mismatches: 1, etaSeconds: 0 },
      result: { sessions: 12, eventsReplayed: 24 },
    });
    expect(done.result.mismatches).toHaveLength(1);
    expect(done.result.mismatches[0]).toMatchObject({ sessionId: 'job-03', match: false });
    expect(done.result.mismatches[0].differences).toContainEqual({ path: 'summary.title', stored: 'Forged', replayed: 'Job job-03' });
    const next = await admin();
    expect(next.status).toBe(202);
    expect(next.body.jobId).not.toBe(jobId);
    await finished(next.body.jobId);
  });

  it('streams progress and one done event with the result on /live', async () => {
    const { jobId } = (await admin()).body;
    const live = openJobLive(jobId);
    await pollUntil('the job\'s stream to end', live.ended, Boolean, { timeoutMs: 10_000 });
    expect(live.text()).toMatch(/^event: progress\ndata: /);
    const done = dataOf(live.events, 'done');
    expect(done).toEqual([expect.objectContaining({ jobId, status: 'completed', result: expect.objectContaining({ sessions: 12 }) })]);
  });

  it('refuses another replica’s running audit with 409, and bad input naming each field', async () => {
    const other = await pool.connect();
    try {
      await other.query('SELECT pg_advisory_lock(7406117301)');
      const res = await admin();
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('AUDIT_ALREADY_RUNNING');
    } finally {
      await other.query('SELECT pg_advisory_unlock(7406117301)');
      other.release();
    }
    const bad = await admin().send({ since: 'yesterday', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'since']);
    const unknown = await request(t.server).get('/v1/audit/00000000-0000-4000-8000-000000000000').set(bearer(KEYS.admin));
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('AUDIT_JOB_NOT_FOUND');
    const malformed = await request(t.server).get('/v1/audit/not-a-job').set(bearer(KEYS.admin));
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual([{ path: 'jobId', message: 'must be an audit job id (a UUID)' }]);
  });
});
