import pg from 'pg';
import { evolveAll, initialSessionState, toSessionStreamId } from '#domain';
import { queryAcrossSessions } from '#event-store';
import { SnapshotStore } from '#read-models';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { appendGolden, goldenNames, runIn } from './cli-test.fixture.js';

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const [first, second] = goldenNames();
  const events = await appendGolden(database.url, first, 'audited');
  await appendGolden(database.url, second, 'untouched');
  // A snapshot as the service writes it (the fold state at version 10).
  await new SnapshotStore(pool).save(toSessionStreamId('audited'), 10, evolveAll(initialSessionState(), events.slice(0, 10)));
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

describe('chronicle audit', () => {
  it('answers exit 0 when every stored view matches a replay', async () => {
    const all = await runIn(database.url, ['audit']);
    expect(all).toMatchObject({ code: 0, stdout: expect.stringContaining('audited 2 session(s)') });
    expect(all.stderr).toMatch(/audit: 2 sessions/);
    const one = await runIn(database.url, ['audit', '--session', 'audited', '--json']);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ sessionId: 'audited', match: true, chain: { ok: true }, differences: [] });
  });

  it('reports a tampered snapshot with its difference and exit 1', async () => {
    await pool.query(
      `UPDATE session_snapshots SET state = jsonb_set(state::jsonb, '{title}', '"tampered"')::json WHERE stream_id = 'session-audited'`,
    );
    const one = await runIn(database.url, ['audit', '--session', 'audited']);
    expect(one.code).toBe(1);
    expect(one.stdout).toContain('session audited');
    expect(one.stdout).toContain('MISMATCH');
    expect(one.stdout).toMatch(/snapshot@10\.title\n\s+stored:\s+"tampered"/);
    const all = await runIn(database.url, ['audit', '--json']);
    expect(all.code).toBe(1);
    const report = JSON.parse(all.stdout);
    expect(report).toMatchObject({ sessions: 2, mismatches: [{ sessionId: 'audited', match: false }] });
    expect(Object.keys(report).sort()).toEqual(['eventsReplayed', 'mismatches', 'seconds', 'sessions']);
  });

  it('reports an event whose data was edited in the database as a broken chain at its version', async () => {
    await pool.query(
      `UPDATE events SET data = jsonb_set(data::jsonb, '{edited}', 'true') WHERE stream_id = 'session-untouched' AND version = 4`,
    );
    const one = await runIn(database.url, ['audit', '--session', 'untouched']);
    expect(one.code).toBe(1);
    expect(one.stdout).toContain('chain: BROKEN at version 4');
  });

  it('audits with --since only the sessions changed at or after it, exit codes as for every session', async () => {
    await queryAcrossSessions(pool, { text: `UPDATE streams SET updated_at = '2026-01-01T00:00:00Z'` });
    await pool.query(`UPDATE streams SET updated_at = '2026-03-01T00:00:00Z' WHERE stream_id = 'session-audited'`);
    const recent = await runIn(database.url, ['audit', '--since', '2026-02-01T00:00:00Z', '--json']);
    expect(recent.code).toBe(1);
    expect(JSON.parse(recent.stdout)).toMatchObject({ sessions: 1, mismatches: [{ sessionId: 'audited' }] });
    expect(recent.stderr).toMatch(/audit: 1 sessions/);
    const none = await runIn(database.url, ['audit', '--since', '2026-04-01']);
    expect(none).toMatchObject({ code: 0, stdout: expect.stringContaining('audited 0 session(s)') });
  });

  it('rebuilds the snapshots blue/green, after which the snapshot no longer differs', async () => {
    const rebuilt = await runIn(database.url, ['rebuild', 'session_snapshots']);
    expect(rebuilt).toMatchObject({ code: 0, stdout: expect.stringMatching(/^rebuilt session_snapshots: \d+ row\(s\)/) });
    const one = await runIn(database.url, ['audit', '--session', 'audited', '--json']);
    expect(JSON.parse(one.stdout).differences.filter((d: { path: string }) => d.path.startsWith('snapshot@'))).toEqual([]);
    expect(await runIn(database.url, ['rebuild', 'no_such'])).toMatchObject({ code: 2, stderr: expect.stringContaining('no projection named') });
  });
});
