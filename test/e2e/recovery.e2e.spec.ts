import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';
import { ingestClient, type JournalEventBody } from '../support/ingest.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const clock = () => Date.now() / 1000;
const ingest = bearer(KEYS.ingest);

const api = ingestClient(() => t.server);
const { eventTypes } = api;

async function pendingTurn(sessionId: string, runId: string, submittedAt = clock()): Promise<number> {
  await api.startSession(sessionId);
  await api.submit(sessionId, { runId, text: 'Write the summary', submittedAt });
  return submittedAt;
}

const sweep = (body: object) => api.admin('/v1/recovery/sweep').send(body);

describe('the liveness routes', () => {
  it('register, renew and release a run lease', async () => {
    const put = await request(t.server)
      .put('/v1/runs/live-run-1/lease')
      .set(ingest)
      .send({ sessionId: 'live-1', hostId: 'host-1', ttlSeconds: 30, phase: 'running' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ runId: 'live-run-1', sessionId: 'live-1', hostId: 'host-1', phase: 'running', releasedAt: null });
    expect(put.body.expiresAt - put.body.phaseSince).toBeCloseTo(30);
    const cancelling = await request(t.server)
      .put('/v1/runs/live-run-1/lease')
      .set(ingest)
      .send({ sessionId: 'live-1', hostId: 'host-1', ttlSeconds: 30, phase: 'cancelling' });
    expect(cancelling.body.phase).toBe('cancelling');
    const deleted = await request(t.server).delete('/v1/runs/live-run-1/lease').set(ingest);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ runId: 'live-run-1', released: true });
  });

  it('open and close a live stream and record host boots', async () => {
    const opened = await request(t.server).put('/v1/runs/live-run-2/stream').set(ingest).send({ sessionId: 'live-2' });
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ runId: 'live-run-2', sessionId: 'live-2' });
    const closed = await request(t.server).delete('/v1/runs/live-run-2/stream').set(ingest).send({ sessionId: 'live-2' });
    expect(closed.body).toEqual({ runId: 'live-run-2', closed: true });
    const boot = await request(t.server).post('/v1/hosts/host-9/started').set(ingest).send({ startedAt: 1_800_000_000 });
    expect(boot.status).toBe(200);
    expect(boot.body).toEqual({ hostId: 'host-9', startedAt: 1_800_000_000, releasedLeases: 0 });
  });

  it('name every bad field in a problem-details 400', async () => {
    const res = await request(t.server)
      .put('/v1/runs/bad%20run/lease')
      .set(ingest)
      .send({ sessionId: 'ok', hostId: 'has space', ttlSeconds: -1, phase: 'sleeping', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'hostId', 'phase', 'ttlSeconds']);
    const boot = await request(t.server).post('/v1/hosts/host-1/started').set(ingest).send({ startedAt: 'today' });
    expect(boot.status).toBe(400);
    expect(boot.body.errors).toEqual([{ path: 'startedAt', message: expect.any(String) }]);
  });

  it('need the ingest scope', async () => {
    const res = await request(t.server).put('/v1/runs/r/stream').set(bearer(KEYS.read)).send({ sessionId: 's' });
    expect(res.status).toBe(403);
  });
});

describe('POST /v1/recovery/sweep', () => {
  it('interrupts a stale turn; the marker waits for the journal, then the journal recovers it', async () => {
    const submittedAt = await pendingTurn('sweep-1', 'sweep-run-1');
    const early = await sweep({});
    expect(early.status).toBe(200);
    expect(early.body).toMatchObject({ interrupted: 0 });

    const res = await sweep({ now: submittedAt + 31 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ examined: expect.any(Number), interrupted: 1, recoveredFromAgentStore: 0, gaveUp: 0 });

    const events = await request(t.server).get('/v1/sessions/sweep-1/events').set(bearer(KEYS.read));
    expect(events.body.items.at(-1)).toMatchObject({
      type: 'TurnInterrupted',
      data: { runId: 'sweep-run-1', cause: 'lost_worker_bookkeeping', detectedAt: submittedAt + 31, evidence: { now: submittedAt + 31 } },
    });
    const markers = await request(t.server).get('/v1/sessions/sweep-1/markers').set(bearer(KEYS.read));
    expect(markers.body.items).toEqual([
      expect.objectContaining({ runId: 'sweep-run-1', cause: 'lost_worker_bookkeeping', status: 'pending_journal' }),
    ]);

    await api.postJournal('sweep-1', 'sweep-run-1', [{ seq: 1, event: 'token', payload: { text: 'Here is the summary so far' }, createdAt: submittedAt + 2 }]);
    const after = await request(t.server).get('/v1/sessions/sweep-1/markers').set(bearer(KEYS.read));
    expect(after.body.items).toEqual([expect.objectContaining({ runId: 'sweep-run-1', status: 'recovered' })]);

    const again = await sweep({ now: submittedAt + 32 });
    expect(again.body).toMatchObject({ interrupted: 0, gaveUp: 0 });
    const metrics = await request(t.server).get('/metrics');
    expect(metrics.text).toMatch(/chronicle_recovery_decisions_total\{decision="TurnInterrupted",cause="lost_worker_bookkeeping"\} [1-9]/);
  });

  it('gives up on a done journal missing seq 1 with a decision, never a silent repeat; seq 1 then settles the turn (issue 11)', async () => {
    const submittedAt = await pendingTurn('sweep-gap-1', 'sweep-gap-run-1');
    expect((await sweep({ now: submittedAt + 31 })).body).toMatchObject({ interrupted: 1 });
    const journal = (events: JournalEventBody[]) => api.postJournal('sweep-gap-1', 'sweep-gap-run-1', events);
    await journal([{ seq: 2, event: 'done', payload: {}, createdAt: submittedAt + 3 }]);
    const markers = async () => (await request(t.server).get('/v1/sessions/sweep-gap-1/markers').set(bearer(KEYS.read))).body.items;
    expect(await markers()).toEqual([expect.objectContaining({ runId: 'sweep-gap-run-1', status: 'pending_journal' })]);
    const session = async () => (await request(t.server).get('/v1/sessions/sweep-gap-1').set(bearer(KEYS.read))).body;
    expect((await session()).status).toBe('recovering');

    const giveUp = await sweep({ now: submittedAt + 31 + 86_400 });
    expect(giveUp.status).toBe(200);
    expect(giveUp.body).toMatchObject({ gaveUp: 1 });
    expect((await eventTypes('sweep-gap-1')).at(-1)).toBe('JournalRecoveryAbandoned');
    expect(await markers()).toEqual([expect.objectContaining({ runId: 'sweep-gap-run-1', status: 'neutral' })]);
    expect((await sweep({ now: submittedAt + 31 + 86_401 })).body).toMatchObject({ gaveUp: 0, interrupted: 0 });
    const metrics = await request(t.server).get('/metrics');
    expect(metrics.text).toContain('# TYPE chronicle_recovery_refusals_total counter');
    expect(metrics.text).not.toMatch(/chronicle_recovery_refusals_total\{[^}]*\} [1-9]/);

    await journal([{ seq: 1, event: 'metering', payload: {}, createdAt: submittedAt + 2 }]);
    expect(await markers()).toEqual([]);
    const display = await request(t.server).get('/v1/sessions/sweep-gap-1/transcript').set(bearer(KEYS.read));
    expect(display.body.messages.some((row: { type?: string }) => row.type === 'interrupted')).toBe(false);
    expect((await session()).status).toBe('active');
  });

  it('never touches a run whose live stream is open', async () => {
    const submittedAt = await pendingTurn('sweep-2', 'sweep-run-2');
    await request(t.server).put('/v1/runs/sweep-run-2/stream').set(ingest).send({ sessionId: 'sweep-2' });
    expect((await sweep({ now: submittedAt + 600 })).body).toMatchObject({ interrupted: 0 });
    expect(await eventTypes('sweep-2')).toEqual(['SessionStarted', 'UserMessageSubmitted']);
    await request(t.server).delete('/v1/runs/sweep-run-2/stream').set(ingest);
    expect((await sweep({ now: submittedAt + 600 })).body).toMatchObject({ interrupted: 1 });
  });

  it("does not take a stream opened before its host rebooted for a live run: the reboot closed it (reference §1.6)", async () => {
    const submittedAt = await pendingTurn('sweep-boot', 'sweep-run-boot');
    await request(t.server).put('/v1/runs/sweep-run-boot/lease').set(ingest).send({ sessionId: 'sweep-boot', hostId: 'host-rebooted', ttlSeconds: 30 });
    await request(t.server).put('/v1/runs/sweep-run-boot/stream').set(ingest).send({ sessionId: 'sweep-boot' });
    const boot = await request(t.server).post('/v1/hosts/host-rebooted/started').set(ingest).send({ startedAt: clock() + 1 });
    expect(boot.body).toMatchObject({ releasedLeases: 1 });
    expect((await sweep({ now: submittedAt + 600 })).body).toMatchObject({ interrupted: 1 });
    const [, , decided] = await eventTypes('sweep-boot');
    expect(decided).toBe('TurnInterrupted');
  });

  it('answers a now earlier than the clock with a 400 and decides nothing', async () => {
    const submittedAt = await pendingTurn('sweep-3', 'sweep-run-3', clock() - 120);
    const res = await sweep({ now: submittedAt });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'now', message: expect.any(String) }] });
    expect(await eventTypes('sweep-3')).toEqual(['SessionStarted', 'UserMessageSubmitted']);
  });

  it('refuses a malformed body and keys without the admin scope', async () => {
    expect((await sweep({ now: 'later' })).status).toBe(400);
    expect((await request(t.server).post('/v1/recovery/sweep').set(ingest).send({})).status).toBe(403);
  });
});
