import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import request from 'supertest';
import { keystoreUrlFor } from '#event-store';
import { loadConfig, parseApiKeys } from '#platform';
import { createApp } from '../../apps/session-api/src/app.factory.js';
import { runWith } from '../../apps/chronicle-cli/src/cli-test.fixture.js';
import { bearer, KEYS, startTestApp, TEST_KEYS_SPEC, TEST_MASTER_KEY, type TestApp } from '../support/app.js';
import { createTestDatabase } from '../support/database.js';
import { expectStatus, ingestClient } from '../support/ingest.js';
import { pollUntil } from '../support/poll.js';

// Issue 30: a session's content is sealed at rest with its own data key; an erasure destroys the key, purges
// every derived copy, answers 410 to every read and write, and leaves a chain the audits still verify.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_PROJECTOR_INTERVAL_MS: '50' });
});
afterAll(async () => {
  await t.close();
});

const api = ingestClient(() => t.server);
const T = Math.floor(Date.now() / 1000) - 100;
/** Strings that only the erased session's content holds: none may be readable anywhere after the erasure. */
const MARKS = ['Zyzzogeton-title', 'Zyzzogeton-prompt', 'Zyzzogeton-token', 'Zyzzogeton-answer', 'Zyzzogeton-state', 'Zyzzogeton-tool'];
const keystoreUrl = () => {
  const url = new URL(t.database.url);
  url.pathname = `${url.pathname}_keys`;
  return url.toString();
};
const cli = (argv: string[]) => runWith({ DATABASE_URL: t.database.url, CHRONICLE_MASTER_KEY: TEST_MASTER_KEY }, argv);

/** Every table of the event database any row of which holds one of the marks as text. */
const tablesHolding = (marks: readonly string[]): Promise<string[]> => tablesHoldingIn(t.database.url, marks);

/** The rows of one query on the database at `url`. */
async function queryIn<Row extends pg.QueryResultRow>(url: string, sql: string): Promise<Row[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<Row>(sql)).rows;
  } finally {
    await c.end();
  }
}

/** The tables of a database any row of which holds one of the marks as text. */
async function tablesHoldingIn(url: string, marks: readonly string[]): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const tables = (await c.query<{ name: string }>(`SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public'`)).rows;
    const holding: string[] = [];
    for (const { name } of tables) {
      const { rows } = await c.query(`SELECT count(*)::int AS n FROM ${name} x WHERE ${marks.map((_, i) => `x::text LIKE $${i + 1}`).join(' OR ')}`, marks.map((m) => `%${m}%`));
      if (rows[0].n > 0) holding.push(name);
    }
    return holding;
  } finally {
    await c.end();
  }
}

/** The marks as one session's content holds them. */
const marksOf = (sessionId: string) => MARKS.map((mark) => `${mark}-${sessionId}`);

async function seed(sessionId: string): Promise<void> {
  const MARKS = marksOf(sessionId);
  await api.startSession(sessionId, { title: MARKS[0], createdAt: T });
  await api.recordMessages(sessionId, [{ role: 'user', content: 'hello', timestamp: T + 1 }, { role: 'assistant', content: 'hi', timestamp: T + 2 }]);
  await api.submit(sessionId, { runId: 'run-1', text: `${MARKS[1]} please`, submittedAt: T + 3 });
  await api.postJournal(sessionId, 'run-1', [
    { seq: 1, event: 'token', payload: { text: MARKS[2] }, createdAt: T + 4 },
    { seq: 2, event: 'tool', payload: { name: 'search', preview: MARKS[5], args: { q: MARKS[5] } }, createdAt: T + 5 },
  ]);
  await api.settle(sessionId, 'run-1', [{ role: 'user', content: `${MARKS[1]} please`, timestamp: T + 3 }, { role: 'assistant', content: MARKS[3], timestamp: T + 6 }], T + 7);
  await api.observeStateRows(sessionId, [{ rowId: 1, role: 'user', content: MARKS[4], timestamp: T + 8 }], T + 9);
}

describe('content sealed at rest, and erased for good', () => {
  beforeAll(async () => {
    await seed('forget-me');
    await seed('keep-me');
    // A snapshot of the session to erase, so there is one to purge.
    await t.query(`INSERT INTO session_snapshots (stream_id, version, schema_version, state)
                   SELECT stream_id, version, 0, '{"title":"${marksOf('forget-me')[0]}"}' FROM streams WHERE stream_id = 'session-forget-me'`);
  });

  it('stores no content in the clear in the events: the chain covers the sealed form', async () => {
    const [row] = await t.query<{ n: number; sealed: number }>(
      `SELECT count(*) FILTER (WHERE data::text LIKE '%Zyzzogeton%')::int AS n, count(*) FILTER (WHERE data::text LIKE '%"sealed"%')::int AS sealed FROM events`,
    );
    expect(row.n).toBe(0);
    expect(row.sealed).toBeGreaterThan(10);
    const transcript = await expectStatus(api.read('/v1/sessions/forget-me/transcript'), 200);
    expect(JSON.stringify(transcript.body)).toContain(marksOf('forget-me')[3]);
    const audit = await expectStatus(request(t.server).post('/v1/sessions/forget-me/audit').set(bearer(KEYS.admin)), 200);
    expect(audit.body).toMatchObject({ match: true, chain: { ok: true } });
  });

  it('erases on an admin request naming a reason, and only then', async () => {
    await expectStatus(request(t.server).post('/v1/sessions/forget-me/erasure').set(bearer(KEYS.ingest)).send({ reason: 'x' }), 403);
    const bad = await expectStatus(request(t.server).post('/v1/sessions/forget-me/erasure').set(bearer(KEYS.admin)).send({}), 400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toContain('reason');
    await expectStatus(request(t.server).post('/v1/sessions/never-was/erasure').set(bearer(KEYS.admin)).send({ reason: 'x' }), 404);
    // What this replica holds in memory of the session (its transcripts and encoded answers) goes with it.
    const cacheBytes = async () => {
      const text = (await expectStatus(request(t.server).get('/metrics').set(bearer(KEYS.admin)), 200)).text;
      const of = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
      return { transcripts: of('chronicle_view_cache_bytes\\{cache="transcripts"\\}'), answers: of('chronicle_answer_cache_bytes') };
    };
    await expectStatus(api.read('/v1/sessions/forget-me/transcript?view=context'), 200);
    await expectStatus(api.read('/v1/sessions/forget-me/transcript?at=3'), 200);
    const before = await cacheBytes();
    const erased = await expectStatus(request(t.server).post('/v1/sessions/forget-me/erasure').set(bearer(KEYS.admin)).send({ reason: 'user request #1' }), 200);
    expect(erased.body).toMatchObject({ sessionId: 'forget-me', appended: 1, duplicate: false, snapshotsPurged: 1 });
    expect(typeof erased.body.dataKeyId).toBe('string');
    const after = await cacheBytes();
    expect(after.transcripts).toBeLessThan(before.transcripts);
    expect(after.answers).toBeLessThan(before.answers);
    const again = await expectStatus(request(t.server).post('/v1/sessions/forget-me/erasure').set(bearer(KEYS.admin)).send({ reason: 'again' }), 200);
    expect(again.body).toMatchObject({ appended: 0, duplicate: true, version: erased.body.version });
  });

  it('answers 410 SESSION_ERASED to every read and every write of the session', async () => {
    for (const path of ['', '/transcript', '/transcript?view=context', '/transcript?at=2', '/markers', '/events', '/runs/run-1/journal', '/live']) {
      const answer = await expectStatus(api.read(`/v1/sessions/forget-me${path}`), 410);
      expect(answer.body).toMatchObject({ code: 'SESSION_ERASED', status: 410, title: 'Gone' });
      expect(JSON.stringify(answer.body)).not.toMatch(/Zyzzogeton/);
    }
    const write = await expectStatus(api.ingest('/v1/sessions/forget-me/messages').send({ rows: [{ role: 'user', content: 'more', timestamp: T + 20 }] }), 410);
    expect(write.body.code).toBe('SESSION_ERASED');
  });

  it('leaves no content of the session in any table, and its data key gone from the key table, vacuumed', async () => {
    // The session index catches up with the erasure (its row keeps no title).
    await pollUntil('the index row of the erased session', async () => (await t.query<{ status: string }>(`SELECT status FROM session_index WHERE session_id = 'forget-me'`))[0]?.status, (s) => s === 'erased');
    // Nor is the live session's: its read models hold its title and prompt sealed too (README "Personal data").
    expect(await tablesHolding(marksOf('keep-me'))).toEqual([]);
    expect(await tablesHolding(marksOf('forget-me'))).toEqual([]);
    const keys = new pg.Client({ connectionString: keystoreUrl() });
    await keys.connect();
    try {
      const { rows } = await keys.query(`SELECT stream_id, wrapped IS NULL AS gone, destroyed_at IS NOT NULL AS tombstone FROM session_data_keys ORDER BY stream_id`);
      expect(rows).toEqual([
        { stream_id: 'session-forget-me', gone: true, tombstone: true },
        { stream_id: 'session-keep-me', gone: false, tombstone: false },
      ]);
      const vacuumed = await pollUntil(
        'the key table vacuumed',
        async () => (await keys.query(`SELECT vacuum_count::int AS n FROM pg_stat_user_tables WHERE relname = 'session_data_keys'`)).rows[0]?.n ?? 0,
        (n) => n > 0,
      );
      expect(vacuumed).toBeGreaterThan(0);
    } finally {
      await keys.end();
    }
  });

  it('still verifies the erased session: the chain over the sealed events, the read models, and says erased', async () => {
    const audit = await expectStatus(request(t.server).post('/v1/sessions/forget-me/audit').set(bearer(KEYS.admin)), 200);
    expect(audit.body).toMatchObject({ match: true, erased: true, chain: { ok: true }, differences: [] });
    const one = await cli(['audit', '--session', 'forget-me']);
    expect(one.stdout).toContain('erased');
    expect(one.code).toBe(0);
    const all = await cli(['audit', '--json']);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({ sessions: 2, mismatches: [] });
  });

  it('exports the erased session as ciphertext without a key, and the other with its key', async () => {
    const exported = await cli(['export']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).not.toMatch(/Zyzzogeton/);
    const lines = exported.stdout.trim().split('\n').map((line) => JSON.parse(line) as { streamId: string; version: number; dataKey?: string });
    expect(lines.find((l) => l.streamId === 'session-forget-me' && l.version === 1)?.dataKey).toBeUndefined();
    expect(lines.find((l) => l.streamId === 'session-keep-me' && l.version === 1)?.dataKey).toEqual(expect.any(String));
  });

  it('imports that export elsewhere with the read models sealed as well: no mark in any table there', async () => {
    const exported = await cli(['export', '--session', 'keep-me']);
    expect(exported.code).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'chronicle-erasure-'));
    writeFileSync(join(dir, 'keep-me.ndjson'), exported.stdout);
    const elsewhere = await createTestDatabase();
    try {
      const imported = await runWith({ DATABASE_URL: elsewhere.url, CHRONICLE_MASTER_KEY: TEST_MASTER_KEY }, ['import', join(dir, 'keep-me.ndjson')]);
      expect(imported.code).toBe(0);
      const [summary] = await queryIn<{ sealed: boolean }>(elsewhere.url, `SELECT data ? 'sealed' AS sealed FROM session_summaries WHERE stream_id = 'session-keep-me'`);
      const [index] = await queryIn<{ sealed: boolean }>(elsewhere.url, `SELECT sealed IS NOT NULL AS sealed FROM session_index WHERE session_id = 'keep-me'`);
      expect({ summary, index }).toEqual({ summary: { sealed: true }, index: { sealed: true } });
      expect(await tablesHoldingIn(elsewhere.url, marksOf('keep-me'))).toEqual([]);
      // And the content opens there with the imported key.
      const replayed = await runWith({ DATABASE_URL: elsewhere.url, CHRONICLE_MASTER_KEY: TEST_MASTER_KEY }, ['replay', 'keep-me', '--json']);
      expect(replayed.code).toBe(0);
      expect(replayed.stdout).toContain(marksOf('keep-me')[3]);
    } finally {
      await elsewhere.drop();
    }
  });

  it('rotates the master key: every data key re-wrapped, the events untouched, the old master key then useless', async () => {
    const next = randomBytes(32).toString('base64');
    const eventsBefore = await t.query<{ h: string }>(`SELECT md5(string_agg(data::text || hash, '' ORDER BY stream_id, version)) AS h FROM events`);
    const rotated = await runWith({ DATABASE_URL: t.database.url, CHRONICLE_MASTER_KEY: next, CHRONICLE_MASTER_KEY_PREVIOUS: TEST_MASTER_KEY }, ['rotate-keys']);
    expect(rotated).toMatchObject({ code: 0 });
    expect(rotated.stdout).toMatch(/^re-wrapped 1 data key\(s\) under master key [0-9a-f]{16}; 0 already were, 1 destroyed/);
    const again = await runWith({ DATABASE_URL: t.database.url, CHRONICLE_MASTER_KEY: next }, ['rotate-keys']);
    expect(again.stdout).toMatch(/^re-wrapped 0 data key\(s\)/);
    expect(await t.query(`SELECT md5(string_agg(data::text || hash, '' ORDER BY stream_id, version)) AS h FROM events`)).toEqual(eventsBefore);
    const withNew = await runWith({ DATABASE_URL: t.database.url, CHRONICLE_MASTER_KEY: next }, ['replay', 'keep-me', '--json']);
    expect(withNew.code).toBe(0);
    expect(withNew.stdout).toContain(marksOf('keep-me')[3]);
    const withOld = await runWith({ DATABASE_URL: t.database.url, CHRONICLE_MASTER_KEY: TEST_MASTER_KEY }, ['replay', 'keep-me', '--json']);
    expect(withOld.code).not.toBe(0);
    expect(withOld.stdout).not.toContain(marksOf('keep-me')[3]);
  });

  it('keeps the other session whole', async () => {
    const transcript = await expectStatus(api.read('/v1/sessions/keep-me/transcript'), 200);
    expect(JSON.stringify(transcript.body)).toContain(marksOf('keep-me')[3]);
    const list = await expectStatus(api.read('/v1/sessions'), 200);
    const erased = list.body.items.find((s: { sessionId: string }) => s.sessionId === 'forget-me');
    expect(erased).toMatchObject({ status: 'erased', title: null });
  });

  it('names `erased` in the contract: a list filter for it, and the SessionSummary schema of the OpenAPI document', async () => {
    const only = await expectStatus(api.read('/v1/sessions?status=erased'), 200);
    expect(only.body.items.map((s: { sessionId: string; status: string }) => [s.sessionId, s.status])).toEqual([['forget-me', 'erased']]);
    const openapi = await expectStatus(api.read('/docs/openapi.json'), 200);
    expect(openapi.body.components.schemas.SessionSummary.properties.status.enum).toContain('erased');
  });
});

describe('retention: sessions untouched for CHRONICLE_RETENTION_DAYS are erased in the background', () => {
  let r: TestApp;
  const now = Math.floor(Date.now() / 1000);
  beforeAll(async () => {
    r = await startTestApp({ CHRONICLE_RETENTION_DAYS: '2', CHRONICLE_RETENTION_INTERVAL_MS: '100', CHRONICLE_PROJECTOR_INTERVAL_MS: '50' });
  });
  afterAll(async () => {
    await r.close();
  });

  it('erases the session written to last before the period by the erasure path, keeps the others, and counts it', async () => {
    const client = ingestClient(() => r.server);
    const status = async (id: string) => (await request(r.server).get(`/v1/sessions/${id}`).set(bearer(KEYS.read))).status;
    await client.startSession('old', { title: 'old title', createdAt: now - 86_400 });
    await client.recordMessages('old', [{ role: 'user', content: 'said yesterday', timestamp: now - 3_600 }]);
    // Its times say recent; what counts is when it was last written: five days ago, as the database recorded it.
    await r.query(`UPDATE streams SET updated_at = now() - interval '5 days' WHERE stream_id = 'session-old'`);
    await client.startSession('recent', { title: 'recent title', createdAt: now - 86_400 });
    await client.recordMessages('recent', [{ role: 'user', content: 'yesterday', timestamp: now - 3_600 }]);
    // Written just now, its times (and a row without one) long ago: an import of an old conversation, a busy one.
    await client.startSession('imported', { title: 'old conversation', createdAt: now - 5 * 86_400 });
    await client.recordMessages('imported', [{ role: 'user', content: 'long ago', timestamp: now - 4 * 86_400 }, { role: 'assistant', content: 'no time' }]);
    const gone = await pollUntil('the old session erased', () => status('old'), (s) => s === 410, { timeoutMs: 10_000 });
    expect(gone).toBe(410);
    // Several sweeps later (one each 100 ms), the others are still there.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect({ recent: await status('recent'), imported: await status('imported') }).toEqual({ recent: 200, imported: 200 });
    const [erased] = await r.query<{ data: { reason: string; requestedBy: string } }>(`SELECT data FROM events WHERE stream_id = 'session-old' AND type = 'SessionErased'`);
    expect(erased.data).toMatchObject({ requestedBy: 'retention', reason: expect.stringContaining('retention') });
    const metrics = await expectStatus(request(r.server).get('/metrics').set(bearer(KEYS.admin)), 200);
    expect(metrics.text).toMatch(/^chronicle_retention_erased_total 1$/m);
  });
});

describe('a backup of the event database taken before an erasure, restored', () => {
  const admin = async <R>(run: (client: pg.Client) => Promise<R>): Promise<R> => {
    const client = new pg.Client({ connectionString: process.env.CHRONICLE_TEST_ADMIN_URL });
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end();
    }
  };
  const urlOf = (database: string) => {
    const url = new URL(process.env.CHRONICLE_TEST_ADMIN_URL as string);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const appOn = async (databaseUrl: string, env: Record<string, string> = {}) =>
    createApp({
      config: loadConfig({ LOG_LEVEL: 'silent', CHRONICLE_RECOVERY_INTERVAL_MS: '0', CHRONICLE_PROJECTOR_INTERVAL_MS: '50', CHRONICLE_MASTER_KEY: TEST_MASTER_KEY, DATABASE_URL: databaseUrl, ...env }),
      databaseUrl,
      keys: parseApiKeys(TEST_KEYS_SPEC),
    });

  it('brings no content back: the key store still says erased, and the service erases the session again at start', async () => {
    const live = await createTestDatabase();
    const backupName = `${new URL(live.url).pathname.slice(1)}_backup`;
    const marks = MARKS.map((mark) => `${mark}-restore-me`);
    try {
      // The session, written, then the service stopped and the database copied whole (a cold backup).
      let app = await appOn(live.url);
      const client = ingestClient(() => app.getHttpServer());
      await client.startSession('restore-me', { title: marks[0], createdAt: T });
      await client.submit('restore-me', { runId: 'run-1', text: marks[1], submittedAt: T + 1 });
      // The list serves the index row's title and pending prompt (opened with the session's key).
      const listed = await pollUntil(
        'the index row with its title and pending prompt',
        async () => (await request(app.getHttpServer()).get('/v1/sessions').set(bearer(KEYS.read))).body.items?.[0],
        (item) => item?.pendingTurn?.text === marks[1],
      );
      expect(listed).toMatchObject({ title: marks[0], pendingTurn: { runId: 'run-1', text: marks[1], attachments: [] } });
      await app.close();
      await pollUntil('the backup copy', () => admin((c) => c.query(`CREATE DATABASE ${backupName} TEMPLATE ${new URL(live.url).pathname.slice(1)}`).then(() => true, () => false)), Boolean);
      // The backup holds the session's title and pending prompt (in its summary and index rows) only sealed.
      expect(await tablesHoldingIn(urlOf(backupName), marks)).toEqual([]);
      // Erased on the live database afterwards.
      app = await appOn(live.url);
      await expectStatus(request(app.getHttpServer()).post('/v1/sessions/restore-me/erasure').set(bearer(KEYS.admin)).send({ reason: 'user request #2' }), 200);
      await app.close();

      // The backup restored in its place, with the key store as it is now (kept apart from the event database).
      const restored = await appOn(urlOf(backupName), { CHRONICLE_KEYSTORE_URL: keystoreUrlFor(live.url) });
      try {
        const server = restored.getHttpServer();
        const gone = await pollUntil('the restored session erased again', async () => (await request(server).get('/v1/sessions/restore-me').set(bearer(KEYS.read))).status, (s) => s === 410);
        expect(gone).toBe(410);
        await expectStatus(request(server).get('/v1/sessions/restore-me/transcript').set(bearer(KEYS.read)), 410);
        const [erased] = (await admin(async () => {
          const c = new pg.Client({ connectionString: urlOf(backupName) });
          await c.connect();
          try {
            return (await c.query(`SELECT data FROM events WHERE stream_id = 'session-restore-me' AND type = 'SessionErased'`)).rows;
          } finally {
            await c.end();
          }
        })) as { data: { requestedBy: string } }[];
        expect(erased.data.requestedBy).toBe('key-store');
        // Its read models caught up: no table of the restored database holds the content.
        await pollUntil('the restored index row erased', async () => (await request(server).get('/v1/sessions').set(bearer(KEYS.read))).body.items?.[0]?.status, (s) => s === 'erased');
        expect(await tablesHoldingIn(urlOf(backupName), marks)).toEqual([]);
      } finally {
        await restored.close();
      }
    } finally {
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${backupName} WITH (FORCE)`));
      await live.drop();
    }
  });
});

describe('a summary row written plain before read models were sealed (an upgrade)', () => {
  it('is sealed in the background at the next start, and reads as before', async () => {
    const live = await createTestDatabase();
    const start = () =>
      createApp({
        config: loadConfig({ LOG_LEVEL: 'silent', CHRONICLE_RECOVERY_INTERVAL_MS: '0', CHRONICLE_MASTER_KEY: TEST_MASTER_KEY, DATABASE_URL: live.url }),
        databaseUrl: live.url,
        keys: parseApiKeys(TEST_KEYS_SPEC),
      });
    const [title] = marksOf('upgraded');
    try {
      let app = await start();
      await ingestClient(() => app.getHttpServer()).startSession('upgraded', { title, createdAt: T });
      await app.close();
      // The row as the code before wrote it: the title in the clear, no seal; no pass has run on this database.
      await queryIn(live.url, `UPDATE session_summaries SET data = (data - 'sealed') || jsonb_build_object('title', '${title}') WHERE stream_id = 'session-upgraded'`);
      await queryIn(live.url, `DELETE FROM projection_checkpoints WHERE name = 'session_summaries_sealed'`);
      expect(await tablesHoldingIn(live.url, [title])).toEqual(['session_summaries']);
      app = await start();
      try {
        await pollUntil('the plain summary sealed', () => tablesHoldingIn(live.url, [title]), (tables) => tables.length === 0);
        expect((await request(app.getHttpServer()).get('/v1/sessions/upgraded').set(bearer(KEYS.read))).body).toMatchObject({ title });
      } finally {
        await app.close();
      }
    } finally {
      await live.drop();
    }
  });
});

describe('a session written before content was sealed (the frozen fixture of 770480d), erased', () => {
  let r: TestApp;
  beforeAll(async () => {
    r = await startTestApp({ CHRONICLE_PROJECTOR_INTERVAL_MS: '50' });
    const imported = await runWith({ DATABASE_URL: r.database.url, CHRONICLE_MASTER_KEY: TEST_MASTER_KEY }, ['import', 'test/fixtures/compat/sessions.ndjson']);
    expect(imported.code).toBe(0);
  });
  afterAll(async () => {
    await r.close();
  });
  const plainText = async (sessionId: string, text: string) =>
    (await r.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE stream_id = $1 AND data::text LIKE $2`, [`session-${sessionId}`, `%${text}%`]))[0].n;
  const audit = async (sessionId: string) => (await expectStatus(request(r.server).post(`/v1/sessions/${sessionId}/audit`).set(bearer(KEYS.admin)), 200)).body;

  it('drops the plain content its events hold, lists them in SessionErased, and the audit verifies the chain around them', async () => {
    expect(await plainText('compat-settled', 'tell me the version')).toBeGreaterThan(0);
    // Every event of that session carries content (its title, rows, prompt, journal, state rows): all twelve.
    const [{ n: withContent }] = await r.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE stream_id = 'session-compat-settled'`);
    expect(withContent).toBe(12);
    const erased = await expectStatus(request(r.server).post('/v1/sessions/compat-settled/erasure').set(bearer(KEYS.admin)).send({ reason: 'legacy' }), 200);
    expect(erased.body).toMatchObject({ appended: 1, dataKeyId: null, contentDropped: 12 });
    expect(await plainText('compat-settled', 'tell me the version')).toBe(0);
    expect(await plainText('compat-settled', 'Grüß')).toBe(0);
    const [decision] = await r.query<{ data: { droppedContent: number[][] } }>(`SELECT data FROM events WHERE stream_id = 'session-compat-settled' AND type = 'SessionErased'`);
    expect(decision.data.droppedContent).toEqual([[1, 12]]);
    await pollUntil('the index row erased', async () => (await r.query<{ status: string }>(`SELECT status FROM session_index WHERE session_id = 'compat-settled'`))[0]?.status, (s) => s === 'erased');
    expect(await audit('compat-settled')).toMatchObject({ match: true, erased: true, chain: { ok: true } });
    const all = await runWith({ DATABASE_URL: r.database.url, CHRONICLE_MASTER_KEY: TEST_MASTER_KEY }, ['audit', '--json']);
    expect(JSON.parse(all.stdout)).toMatchObject({ mismatches: [] });
    await expectStatus(ingestClient(() => r.server).read('/v1/sessions/compat-settled/transcript'), 410);
  });

  it('still breaks the chain at an event put in the dropped form that no erasure listed', async () => {
    expect(await audit('compat-abandoned')).toMatchObject({ match: true, chain: { ok: true } });
    await r.query(`UPDATE events SET data = ((data::jsonb - 'rows') || '{"dropped":"content"}')::json WHERE stream_id = 'session-compat-abandoned' AND version = 2`);
    expect((await audit('compat-abandoned')).chain).toEqual({ ok: false, firstBrokenVersion: 2 });
  });
});
