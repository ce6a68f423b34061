import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createSessionEventStore, SessionViews, SnapshotStore } from '#read-models';
import { LivenessRegistry, RecoverySupervisor } from '#recovery';
import { SessionWriter } from '#session-commands';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { T, WORKSPACE, writeHermesScenarios } from '../../../test/support/hermes-scenarios.fixture.js';
import { runIn } from './cli-test.fixture.js';
import { testKeyring } from '../../../test/support/master-key.js';
import type { SessionKeyring } from '#event-store';

const layout = await writeHermesScenarios(mkdtempSync(join(tmpdir(), 'hermes-webui-')));
const args = ['import-hermes', '--sessions', layout.sessions, '--state-db', layout.stateDb];
let db: TestDatabase;
let pool: pg.Pool;
let keyring: SessionKeyring | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
});
afterAll(async () => {
  await keyring?.close();
  await pool.end();
  await db.drop();
});

const eventCount = async (url = db.url): Promise<number> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT count(*)::int AS n FROM events')).rows[0].n;
  } finally {
    await client.end();
  }
};
const transcript = async (sessionId: string) => JSON.parse((await runIn(db.url, ['replay', sessionId, '--json'])).stdout);
const texts = (messages: { role: string; content: string }[]) => messages.map((m) => `${m.role}: ${m.content}`);

const EXPECTED_REPORT = {
  dryRun: false,
  sessions: { read: 8, imported: 6, unchanged: 0, refused: 2 },
  events: {
    total: 27,
    byType: { JournalEventRecorded: 7, MessagesRecorded: 7, SessionCompressed: 1, SessionStarted: 6, StateRowsObserved: 4, TranscriptTruncated: 1, UserMessageSubmitted: 1 },
  },
  skipped: [
    { item: `${layout.stateDb} session hx-cli-only`, reason: '1 row(s) without a sidecar file; not imported' },
    { item: 'bad id.json', reason: 'session id "bad id" is refused by the contract ([A-Za-z0-9_.:-]{1,128}); session not imported' },
    { item: 'broken.json', reason: expect.stringMatching(/^not JSON \(.+\); session not imported$/) },
    { item: 'ghost/run-ghost.jsonl', reason: 'no sidecar file for its session; journal not imported' },
    { item: 'hx-crash/run-crash.jsonl line 6', reason: 'malformed line: not JSON' },
  ],
};

describe('chronicle import-hermes on a hermes-webui install', () => {
  it('with --dry-run stores nothing and reports what a real run appends', async () => {
    const dry = await runIn(db.url, [...args, '--dry-run', '--json']);
    expect(JSON.parse(dry.stdout)).toEqual({ ...EXPECTED_REPORT, dryRun: true });
    expect(await eventCount()).toBe(0);
  });

  it('imports every readable session whole, and names each bad input with its reason (exit 1 for the refused sessions)', async () => {
    const run = await runIn(db.url, [...args, '--json']);
    expect(JSON.parse(run.stdout)).toEqual(EXPECTED_REPORT);
    expect(run.code).toBe(1);
    expect(await eventCount()).toBe(27);
    expect(run.stderr).toMatch(/import-hermes: 6 sessions in/);
  });

  it('shows a finished turn once although the agent store re-stamped it with the workspace prefix', async () => {
    const plain = await transcript('hx-plain');
    expect(plain.messages).toHaveLength(4);
    expect(plain.messages[1]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_1' }], timestamp: T + 2 });
    expect(plain.messages[2]).toMatchObject({ role: 'tool', toolCallId: 'call_1', toolName: 'list_files' });
    expect(plain.messages[3]).toEqual({ role: 'assistant', content: 'Run chronicle import-hermes.', timestamp: T + 5, meta: { turnDuration: 5.1, usedModel: 'claude-sonnet' } });
  });

  it('appends the agent-only newer turn verbatim and never shows inactive rows', async () => {
    const workspace = await transcript('hx-workspace');
    expect(texts(workspace.messages)).toEqual([
      'user: Why does the build fail?',
      'assistant: The lockfile is stale.',
      `user: ${WORKSPACE}And how do I fix it?`,
      'assistant: Run npm install and commit the lockfile.',
    ]);
    expect(workspace.messages[2].timestamp).toBe(T + 400.125);
  });

  it('keeps an edited-away turn out through the imported watermark and boundary', async () => {
    expect(texts((await transcript('hx-edited')).messages)).toEqual(['user: Name a colour.', 'assistant: Blue.', 'user: Name a fruit instead.', 'assistant: A pear.']);
  });

  it('archives a compression parent for its child', async () => {
    // The events as the service reads them (their content sealed in the table).
    keyring ??= await testKeyring(db.url);
    const store = await createSessionEventStore(pool, { keyring });
    const rows = [];
    for (const streamId of ['session-hx-child', 'session-hx-parent']) {
      for (const e of await store.readStream(streamId)) {
        if (e.type === 'SessionCompressed' || e.type === 'SessionStarted') rows.push({ stream_id: streamId, data: e.data });
      }
    }
    expect(rows).toEqual([
      { stream_id: 'session-hx-child', data: { sessionId: 'hx-child', title: 'History', parentSessionId: 'hx-parent', createdAt: T + 600 } },
      { stream_id: 'session-hx-parent', data: { sessionId: 'hx-parent', title: 'History', parentSessionId: null, createdAt: T + 500 } },
      { stream_id: 'session-hx-parent', data: { childSessionId: 'hx-child', at: T + 600 } },
    ]);
  });

  it('recovers the crashed turn from its journal once the supervisor decides it: recovered rows, the tool card, the marker', async () => {
    keyring ??= await testKeyring(db.url);
    const store = await createSessionEventStore(pool, { keyring });
    const views = new SessionViews(store, new SnapshotStore(pool, keyring), { snapshotEvery: 1000 });
    const supervisor = new RecoverySupervisor(pool, store, new LivenessRegistry(pool), views, new SessionWriter(store, views));
    expect(await supervisor.sweep()).toMatchObject({ interrupted: 1 });
    const crash = await transcript('hx-crash');
    expect(texts(crash.messages)).toEqual([
      'user: Hi',
      'assistant: Hello! What shall we look at?',
      "user: Summarise yesterday's error logs",
      'assistant: Reading errors.log.',
      'assistant: Two timeouts and one disk-full error.',
      'assistant: **Response interrupted.**\n\nThe live response stream stopped before this turn finished. Evidence: the stream was gone and ' +
        'worker bookkeeping no longer had an active run for it. This usually means the worker state was lost or cleaned up without a ' +
        'terminal event. The partial output above was recovered from the run journal, but the interrupted agent process could not continue.',
    ]);
    expect(crash.messages[2]).toMatchObject({ recovered: true, attachments: ['errors.log'], timestamp: T + 200 });
    expect(crash.messages[5]).toMatchObject({ type: 'interrupted', error: true, interruptionCause: 'lost_worker_bookkeeping' });
    expect(crash.toolCards).toEqual([
      { name: 'read_file', preview: 'errors.log (212 lines)', args: { path: '/var/log/errors.log' }, done: true, isError: false, duration: 0.4, assistantMessageIndex: 3, recoveredFromRunJournal: true, recoveredRunId: 'run-crash' },
    ]);
  });

  it('appends nothing when run again, also after the recovery decision', async () => {
    const before = await eventCount();
    const again = JSON.parse((await runIn(db.url, [...args, '--json'])).stdout);
    expect(again.sessions).toEqual({ read: 8, imported: 0, unchanged: 6, refused: 2 });
    expect(again.events).toEqual({ total: 0, byType: {} });
    expect(await eventCount()).toBe(before);
  });

  it('reports a state.db that is not SQLite and still imports the sidecars', async () => {
    const fresh = await createTestDatabase();
    try {
      const bogus = join(layout.root, 'not-sqlite.db');
      writeFileSync(bogus, 'SQLite format? no: this is a text file pretending to be a database.');
      const report = JSON.parse((await runIn(fresh.url, ['import-hermes', '--sessions', layout.sessions, '--state-db', bogus, '--json'])).stdout);
      expect(report.skipped).toContainEqual({ item: bogus, reason: expect.stringMatching(/^not an SQLite database \(.+\); no agent-store rows imported$/) });
      expect(report.sessions).toMatchObject({ imported: 6 });
      expect(report.events.byType.StateRowsObserved).toBeUndefined();
    } finally {
      await fresh.drop();
    }
  });

  it('refuses a --state-db path that does not exist before writing anything (exit 2), naming the option', async () => {
    const fresh = await createTestDatabase();
    try {
      const mistyped = join(layout.root, 'stat.db');
      const run = await runIn(fresh.url, ['import-hermes', '--sessions', layout.sessions, '--state-db', mistyped, '--json']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`cannot read --state-db ${mistyped}`);
      expect(run.stdout).toBe('');
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      try {
        expect((await client.query('SELECT count(*)::int AS n FROM events')).rows[0].n).toBe(0);
      } finally {
        await client.end();
      }
      const directory = await runIn(fresh.url, ['import-hermes', '--sessions', layout.sessions, '--state-db', layout.sessions]);
      expect(directory.code).toBe(2);
      expect(directory.stderr).toContain('--state-db');
      expect(directory.stderr).toContain('is not a file');
    } finally {
      await fresh.drop();
    }
  });
});

describe('chronicle import-hermes run again on sessions hermes saved since', () => {
  const sessions = mkdtempSync(join(tmpdir(), 'hermes-resaved-'));
  let own: TestDatabase;
  beforeAll(async () => {
    own = await createTestDatabase();
  });
  afterAll(async () => {
    await own.drop();
  });
  const run = async () => JSON.parse((await runIn(own.url, ['import-hermes', '--sessions', sessions, '--json'])).stdout) as { sessions: Record<string, number>; events: { total: number } };
  const types = async () => {
    const client = new pg.Client({ connectionString: own.url });
    await client.connect();
    try {
      return (await client.query(`SELECT stream_id, type FROM events ORDER BY stream_id, version`)).rows.map((row) => `${row.stream_id} ${row.type}`);
    } finally {
      await client.end();
    }
  };

  it('appends nothing more for a cleared session (the 0.0 watermark, no rows), however often it runs', async () => {
    writeFileSync(join(sessions, 'hx-cleared.json'), JSON.stringify({ session_id: 'hx-cleared', title: 'Cleared', created_at: T, updated_at: T + 100, messages: [], truncation_watermark: 0.0 }));
    expect((await run()).events.total).toBe(2);
    for (const _ of [1, 2]) expect(await run()).toMatchObject({ sessions: { imported: 0, unchanged: 1, refused: 0 }, events: { total: 0 } });
    expect(await types()).toEqual(['session-hx-cleared SessionStarted', 'session-hx-cleared TranscriptTruncated']);
  });

  it('keeps a pending prompt saved without a start one turn when hermes saves the session again (updated_at moves)', async () => {
    const sidecar = { session_id: 'hx-waiting', title: 'Waiting', created_at: T, updated_at: T + 100, messages: [], pending_user_message: 'still there?' };
    writeFileSync(join(sessions, 'hx-waiting.json'), JSON.stringify(sidecar));
    await run();
    writeFileSync(join(sessions, 'hx-waiting.json'), JSON.stringify({ ...sidecar, updated_at: T + 500 }));
    expect(await run()).toMatchObject({ sessions: { imported: 0, refused: 0 }, events: { total: 0 } });
    expect((await types()).filter((row) => row.startsWith('session-hx-waiting'))).toEqual(['session-hx-waiting SessionStarted', 'session-hx-waiting UserMessageSubmitted']);
  });
});
