import { startTestApp, type TestApp } from '../support/app.js';
import { ingestClient } from '../support/ingest.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_BODY_LIMIT_BYTES: '20000' });
});
afterAll(async () => {
  await t.close();
});

const api = ingestClient(() => t.server);
const { ingest, read } = api;
const start = (sessionId: string) => api.startSession(sessionId, { title: `title ${sessionId}`, createdAt: 100 });

describe('ingestion routes', () => {
  it('records UI rows, answers the version and shows them in the transcript (read your writes)', async () => {
    await start('ing-1');
    const res = await ingest('/v1/sessions/ing-1/messages').send({
      rows: [
        { role: 'user', content: 'hello', timestamp: 101 },
        { role: 'assistant', content: 'hi there', timestamp: 102 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sessionId: 'ing-1', version: 2, appended: 1, duplicate: false });
    const transcript = await read('/v1/sessions/ing-1/transcript');
    expect(transcript.status).toBe(200);
    expect(transcript.body.version).toBe(2);
    expect(transcript.body.messages.map((m: { content: string }) => m.content)).toEqual(['hello', 'hi there']);
    expect(transcript.body.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('treats a repeated Idempotency-Key as a duplicate and appends nothing', async () => {
    await start('ing-idem');
    const send = () =>
      ingest('/v1/sessions/ing-idem/messages').set('Idempotency-Key', 'k-1').send({ rows: [{ role: 'user', content: 'x' }] });
    expect((await send()).body).toMatchObject({ version: 2, appended: 1, duplicate: false });
    expect((await send()).body).toEqual({ sessionId: 'ing-idem', version: 2, appended: 0, duplicate: true });
  });

  it('submits a turn, settles it once, and answers the repeat settle as a duplicate', async () => {
    await start('ing-turn');
    const submit = () =>
      ingest('/v1/sessions/ing-turn/submissions').send({ runId: 'run-1', text: 'what is 2+2?', submittedAt: 200 });
    expect((await submit()).body).toMatchObject({ version: 2, appended: 1, duplicate: false });
    expect((await submit()).body).toMatchObject({ version: 2, appended: 0, duplicate: true });
    const summary = await read('/v1/sessions/ing-turn');
    expect(summary.body.pendingTurn).toMatchObject({ runId: 'run-1', text: 'what is 2+2?', submittedAt: 200 });

    const settle = () =>
      ingest('/v1/sessions/ing-turn/runs/run-1/settle').send({
        rows: [
          { role: 'user', content: 'what is 2+2?', timestamp: 200 },
          { role: 'assistant', content: '4', timestamp: 201 },
        ],
        settledAt: 201,
      });
    expect((await settle()).body).toMatchObject({ version: 3, appended: 1, duplicate: false });
    expect((await settle()).body).toMatchObject({ version: 3, appended: 0, duplicate: true });
    const after = await read('/v1/sessions/ing-turn');
    expect(after.body).toMatchObject({ sessionId: 'ing-turn', version: 3, pendingTurn: null, messageCount: 2 });
  });

  it('records journal events once per (runId, seq) and reads the journal with its gaps', async () => {
    await start('ing-journal');
    const events = [
      { seq: 1, event: 'token', payload: { text: 'Hel' }, createdAt: 300 },
      { seq: 3, event: 'token', payload: { text: 'lo' }, createdAt: 301 },
    ];
    const first = await ingest('/v1/sessions/ing-journal/runs/r1/journal').send({ events });
    expect(first.body).toMatchObject({ version: 3, appended: 2, duplicate: false });
    const again = await ingest('/v1/sessions/ing-journal/runs/r1/journal').send({ events });
    expect(again.body).toMatchObject({ version: 3, appended: 0, duplicate: true });
    const journal = await read('/v1/sessions/ing-journal/runs/r1/journal');
    expect(journal.body).toMatchObject({ runId: 'r1', lastSeq: 3, gaps: [[2, 2]], terminal: false, terminalState: 'running' });
    const unknownRun = await read('/v1/sessions/ing-journal/runs/nothing/journal');
    expect([unknownRun.status, unknownRun.body.code]).toEqual([404, 'RUN_NOT_FOUND']);
  });

  it('reads a settled run’s whole journal back from the stream, late events included, and keeps (runId, seq) once', async () => {
    await start('ing-settled-journal');
    const token = (seq: number, text: string) => ({ seq, event: 'token', payload: { text }, createdAt: 500 + seq });
    const journal = (runId: string, events: unknown[]) => ingest(`/v1/sessions/ing-settled-journal/runs/${runId}/journal`).send({ events });
    // A late event of an older run lands between this run's events: the read must leave it out.
    await journal('older', [token(1, 'old')]);
    expect((await ingest('/v1/sessions/ing-settled-journal/submissions').send({ runId: 'r1', text: 'hi', submittedAt: 500 })).status).toBe(200);
    await journal('r1', [token(1, 'Hel'), token(2, 'lo')]);
    await journal('older', [token(2, 'older still')]);
    await journal('r1', [token(4, '!'), { seq: 5, event: 'done', payload: {}, createdAt: 506 }]);
    const settle = await ingest('/v1/sessions/ing-settled-journal/runs/r1/settle').send({
      rows: [
        { role: 'user', content: 'hi', timestamp: 500 },
        { role: 'assistant', content: 'Hello!', timestamp: 506 },
      ],
      settledAt: 506,
    });
    expect(settle.status).toBe(200);
    // After the settle: a repeat is still a duplicate, a seq never seen is recorded.
    expect((await journal('r1', [token(2, 'lo again')])).body).toMatchObject({ appended: 0, duplicate: true });
    expect((await journal('r1', [token(3, 'late'), token(1, 'repeat')])).body).toMatchObject({ appended: 1, duplicate: false });
    const read1 = await read('/v1/sessions/ing-settled-journal/runs/r1/journal');
    expect(read1.status).toBe(200);
    expect(read1.body).toMatchObject({ runId: 'r1', lastSeq: 5, gaps: [], terminal: true, terminalState: 'completed' });
    expect(read1.body.events.map((e: { seq: number; payload: { text?: string } }) => [e.seq, e.payload.text ?? null])).toEqual([
      [1, 'Hel'],
      [2, 'lo'],
      [3, 'late'],
      [4, '!'],
      [5, null],
    ]);
    const older = await read('/v1/sessions/ing-settled-journal/runs/older/journal');
    expect(older.body.events.map((e: { seq: number }) => e.seq)).toEqual([1, 2]);
    const transcript = await read('/v1/sessions/ing-settled-journal/transcript');
    expect(transcript.body.messages.map((m: { content: string }) => m.content)).toEqual(['hi', 'Hello!']);
  });

  it('refuses to settle a run that was never submitted (404 RUN_NOT_FOUND) and stores nothing', async () => {
    await start('ing-ghost-run');
    const settle = await ingest('/v1/sessions/ing-ghost-run/runs/never/settle').send({
      rows: [{ role: 'assistant', content: 'made up', timestamp: 10 }],
      settledAt: 10,
    });
    expect([settle.status, settle.body.code]).toEqual([404, 'RUN_NOT_FOUND']);
    expect((await read('/v1/sessions/ing-ghost-run')).body.version).toBe(1);
  });

  it('observes state rows by rowId: an identical repeat is a duplicate, a changed row is recorded', async () => {
    await start('ing-state');
    const row = { rowId: 1, role: 'user', content: 'from the agent store', timestamp: 400.5 };
    expect((await ingest('/v1/sessions/ing-state/state-rows').send({ rows: [row], observedAt: 401 })).body).toMatchObject({
      appended: 1,
    });
    expect((await ingest('/v1/sessions/ing-state/state-rows').send({ rows: [row], observedAt: 402 })).body).toMatchObject({
      appended: 0,
      duplicate: true,
    });
    const transcript = await read('/v1/sessions/ing-state/transcript?view=display');
    expect(transcript.body.messages.map((m: { content: string }) => m.content)).toEqual(['from the agent store']);
  });

  it('answers 404 SESSION_NOT_FOUND on every route for a session never started', async () => {
    const writes = [
      ingest('/v1/sessions/ghost/messages').send({ rows: [{ role: 'user', content: 'x' }] }),
      ingest('/v1/sessions/ghost/submissions').send({ runId: 'r', text: 'x', submittedAt: 1 }),
      ingest('/v1/sessions/ghost/runs/r/settle').send({ rows: [], settledAt: 1 }),
      ingest('/v1/sessions/ghost/runs/r/journal').send({ events: [{ seq: 1, event: 'token', payload: {}, createdAt: 1 }] }),
      ingest('/v1/sessions/ghost/state-rows').send({ rows: [{ rowId: 1, role: 'user', content: 'x' }], observedAt: 1 }),
      ingest('/v1/sessions/ghost/truncate').send({ keepCount: 0, reason: 'clear', at: 1 }),
      read('/v1/sessions/ghost'),
      read('/v1/sessions/ghost/transcript'),
      read('/v1/sessions/ghost/markers'),
      read('/v1/sessions/ghost/runs/r/journal'),
      read('/v1/sessions/ghost/live'),
    ];
    for (const res of await Promise.all(writes)) {
      expect([res.status, res.body.code]).toEqual([404, 'SESSION_NOT_FOUND']);
    }
  });

  it('refuses text PostgreSQL cannot store with a 400, storing nothing', async () => {
    await start('ing-nul');
    const res = await ingest('/v1/sessions/ing-nul/messages').send({ rows: [{ role: 'user', content: 'a\u0000b' }] });
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await read('/v1/sessions/ing-nul')).body.version).toBe(1);
  });

  it('names every bad field (400) and stores nothing', async () => {
    await start('ing-bad');
    const res = await ingest('/v1/sessions/ing-bad/submissions').send({ runId: 'no spaces', text: 7, extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['extra', 'runId', 'submittedAt', 'text']);
    const journal = await ingest('/v1/sessions/ing-bad/runs/r/journal').send({ events: [{ seq: 0, event: 'token' }] });
    expect(journal.status).toBe(400);
    expect(journal.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'events.0.createdAt',
      'events.0.payload',
      'events.0.seq',
    ]);
    expect((await read('/v1/sessions/ing-bad')).body.version).toBe(1);
  });

  it('refuses a moved stream: 409 with expectedVersion, 412 with If-Match, nothing stored', async () => {
    await start('ing-cc');
    const rows = [{ role: 'user', content: 'a' }];
    expect((await ingest('/v1/sessions/ing-cc/messages').send({ rows, expectedVersion: 1 })).status).toBe(200);
    const conflict = await ingest('/v1/sessions/ing-cc/messages').send({ rows, expectedVersion: 1 });
    expect([conflict.status, conflict.body.code]).toEqual([409, 'STREAM_VERSION_CONFLICT']);
    const precondition = await ingest('/v1/sessions/ing-cc/messages').set('If-Match', '"1"').send({ rows });
    expect([precondition.status, precondition.body.code]).toEqual([412, 'PRECONDITION_FAILED']);
    expect((await ingest('/v1/sessions/ing-cc/messages').set('If-Match', '"2"').send({ rows })).status).toBe(200);
    expect((await read('/v1/sessions/ing-cc')).body.version).toBe(3);
  });

  it('answers the retry of a write that was applied (its answer lost) as a duplicate, precondition or not', async () => {
    await start('ing-retry');
    const submission = { runId: 'r-1', text: 'hello', submittedAt: 20, expectedVersion: 1 };
    expect((await ingest('/v1/sessions/ing-retry/submissions').send(submission)).body).toMatchObject({ version: 2, appended: 1 });
    // The same submission again: the stream moved, by that very write.
    expect((await ingest('/v1/sessions/ing-retry/submissions').send(submission)).body).toMatchObject({ version: 2, appended: 0, duplicate: true });
    const rows = [{ role: 'user', content: 'note' }];
    const keyed = () => ingest('/v1/sessions/ing-retry/messages').set('Idempotency-Key', 'retry-1').set('If-Match', '"2"').send({ rows });
    expect((await keyed()).body).toMatchObject({ version: 3, appended: 1 });
    const again = await keyed();
    expect([again.status, again.body]).toEqual([200, { sessionId: 'ing-retry', version: 3, appended: 0, duplicate: true }]);
    // A different write with the old precondition is still a conflict, and stores nothing.
    const other = await ingest('/v1/sessions/ing-retry/submissions').send({ ...submission, runId: 'r-2' });
    expect([other.status, other.body.code]).toEqual([409, 'STREAM_VERSION_CONFLICT']);
    // After the session was compressed, the submission's repeat is still a duplicate, as a settle's is.
    await ingest('/v1/sessions/ing-retry/runs/r-1/settle').send({ rows: [{ role: 'user', content: 'hello', timestamp: 20 }], settledAt: 21 });
    expect((await ingest('/v1/sessions/ing-retry/compress').send({ childSessionId: 'ing-retry-child', at: 22 })).status).toBe(200);
    const { expectedVersion: _ignored, ...unguarded } = submission;
    expect((await ingest('/v1/sessions/ing-retry/submissions').send(unguarded)).body).toMatchObject({ appended: 0, duplicate: true });
    const fresh = await ingest('/v1/sessions/ing-retry/submissions').send({ ...unguarded, runId: 'r-3' });
    expect([fresh.status, fresh.body.code]).toEqual([409, 'SESSION_ARCHIVED']);
  });

  it('refuses a malformed or contradicting precondition with a 400 naming it, on every write route', async () => {
    await start('ing-pre');
    const rows = [{ role: 'user', content: 'a' }];
    const malformed = await ingest('/v1/sessions/ing-pre/messages').set('If-Match', 'soon').send({ rows });
    expect([malformed.status, malformed.body.errors]).toEqual([400, [{ path: 'header.If-Match', message: 'must be a quoted non-negative integer' }]]);
    const contradicting = await ingest('/v1/sessions/ing-pre/truncate').set('If-Match', '"2"').send({ keepCount: 0, reason: 'clear', at: 5, expectedVersion: 1 });
    expect([contradicting.status, contradicting.body.errors]).toEqual([400, [{ path: 'expectedVersion', message: 'is 1 but If-Match says 2' }]]);
    const moved = await ingest('/v1/sessions/ing-pre/compress').set('If-Match', '"0"').send({ childSessionId: 'ing-pre-child', at: 6 });
    expect([moved.status, moved.body.code]).toEqual([412, 'PRECONDITION_FAILED']);
    expect((await read('/v1/sessions/ing-pre')).body).toMatchObject({ version: 1, archived: false });
    expect((await read('/v1/sessions/ing-pre-child')).status).toBe(404);
    const held = await ingest('/v1/sessions/ing-pre/compress').set('If-Match', '"1"').send({ childSessionId: 'ing-pre-child', at: 6 });
    expect([held.status, held.body]).toEqual([200, { sessionId: 'ing-pre', version: 2, appended: 1, duplicate: false, childSessionId: 'ing-pre-child', childVersion: 1 }]);
  });

  it('answers 413 above the body limit', async () => {
    await start('ing-big');
    const res = await ingest('/v1/sessions/ing-big/messages').send({ rows: [{ role: 'user', content: 'x'.repeat(30_000) }] });
    expect([res.status, res.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.body.detail).toContain('20000 bytes (CHRONICLE_BODY_LIMIT_BYTES)');
    expect((await read('/v1/sessions/ing-big')).body.version).toBe(1);
  });

  it('serialises concurrent writers without a precondition and loses none', async () => {
    await start('ing-race');
    const writes = Array.from({ length: 12 }, (_, i) =>
      ingest('/v1/sessions/ing-race/runs/r/journal').send({
        events: [{ seq: i + 1, event: 'token', payload: { text: `t${i}` }, createdAt: 500 + i }],
      }),
    );
    const results = await Promise.all(writes);
    expect(results.every((r) => r.status === 200 && r.body.appended === 1)).toBe(true);
    const journal = await read('/v1/sessions/ing-race/runs/r/journal');
    expect(journal.body.lastSeq).toBe(12);
    expect(journal.body.gaps).toEqual([]);
    expect((await read('/v1/sessions/ing-race')).body.version).toBe(13);
  });

  it('truncates (keepCount beyond the transcript is a 422) and compresses into a child session', async () => {
    await start('ing-cut');
    await ingest('/v1/sessions/ing-cut/messages').send({
      rows: [
        { role: 'user', content: 'one', timestamp: 10 },
        { role: 'assistant', content: 'two', timestamp: 11 },
      ],
    });
    const tooMany = await ingest('/v1/sessions/ing-cut/truncate').send({ keepCount: 5, reason: 'undo', at: 12 });
    expect([tooMany.status, tooMany.body.code]).toEqual([422, 'KEEP_COUNT_OUT_OF_RANGE']);
    expect((await ingest('/v1/sessions/ing-cut/truncate').send({ keepCount: 1, reason: 'undo', at: 12 })).status).toBe(200);
    const transcript = await read('/v1/sessions/ing-cut/transcript');
    expect(transcript.body.messages.map((m: { content: string }) => m.content)).toEqual(['one']);

    const compress = await ingest('/v1/sessions/ing-cut/compress').send({ childSessionId: 'ing-cut-child', at: 13 });
    expect(compress.status).toBe(200);
    expect((await read('/v1/sessions/ing-cut')).body.archived).toBe(true);
    const child = await read('/v1/sessions/ing-cut-child');
    expect(child.body).toMatchObject({ parentSessionId: 'ing-cut', archived: false });
    const repeat = await ingest('/v1/sessions/ing-cut/compress').send({ childSessionId: 'ing-cut-child', at: 13 });
    expect(repeat.body).toMatchObject({ appended: 0, duplicate: true });

    await start('ing-cut-2');
    await start('stranger');
    const intoStranger = await ingest('/v1/sessions/ing-cut-2/compress').send({ childSessionId: 'stranger', at: 14 });
    expect([intoStranger.status, intoStranger.body.code]).toEqual([409, 'SESSION_ALREADY_EXISTS']);
    expect((await read('/v1/sessions/ing-cut-2')).body.archived).toBe(false);

    // A child its client started already, naming the parent (with a title of its own): the compress completes
    // and leaves the child as it is, rather than archiving the parent and then refusing the child's start.
    await start('ing-cut-3');
    await ingest('/v1/sessions').send({ sessionId: 'ing-cut-3-child', title: 'Continued', parentSessionId: 'ing-cut-3' });
    const intoOwnChild = await ingest('/v1/sessions/ing-cut-3/compress').send({ childSessionId: 'ing-cut-3-child', at: 15 });
    expect(intoOwnChild.status).toBe(200);
    expect(intoOwnChild.body).toMatchObject({ childSessionId: 'ing-cut-3-child', childVersion: 1, duplicate: false });
    expect((await read('/v1/sessions/ing-cut-3')).body.archived).toBe(true);
    expect((await read('/v1/sessions/ing-cut-3-child')).body).toMatchObject({ title: 'Continued', parentSessionId: 'ing-cut-3', version: 1 });
  });
});

describe('the append transaction', () => {
  it('writes the small session summary row with the stream version', async () => {
    await start('ing-summary');
    await ingest('/v1/sessions/ing-summary/submissions').send({ runId: 'r-s', text: 'hi', submittedAt: 700 });
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: t.database.url });
    await client.connect();
    try {
      const row = await client.query(`SELECT version::int, data FROM session_summaries WHERE stream_id = 'session-ing-summary'`);
      expect(row.rows[0].version).toBe(2);
      // Its title and pending prompt sealed with the session's key (README "Personal data"); the rest plain.
      expect(row.rows[0].data).toMatchObject({ sessionId: 'ing-summary', version: 2, title: null, pendingTurn: { runId: 'r-s', submittedAt: 700 } });
      expect(row.rows[0].data.pendingTurn).not.toHaveProperty('text');
      expect(row.rows[0].data.sealed).toMatch(/^1:/);
      expect(JSON.stringify(row.rows[0].data)).not.toContain('title ing-summary');
    } finally {
      await client.end();
    }
  });
});
