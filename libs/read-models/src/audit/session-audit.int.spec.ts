import pg from 'pg';
import { toSessionStreamId } from '#domain';
import type { EventStore } from '#event-store';
import { useTestDatabase } from '../../../../test/support/database.js';
import { SessionIndexProjector } from '../session-index/session-index.projector.js';
import { newViews, newWriter, snapshotStored, writeSession } from './audit.fixtures.js';
import { type AuditDeps, auditSession, AuditSessionNotFoundError } from './session-audit.js';

const db = useTestDatabase();
let pool: pg.Pool;
let store: EventStore;
beforeAll(() => {
  ({ pool, store } = db);
});

/** A session of 5 events with a snapshot at 3, its summary row and its index row; audited by a cold replica. */
async function given(sessionId: string): Promise<AuditDeps> {
  const views = newViews(store, pool);
  await writeSession(newWriter(store, views), sessionId, 4);
  await snapshotStored(pool, sessionId, 3);
  await new SessionIndexProjector(pool, store, views).catchUp();
  return { pool, store, views: newViews(store, pool) };
}

const streamOf = toSessionStreamId;

describe('auditing one session', () => {
  it('matches when every read model is what the events say', async () => {
    const audit = await auditSession(await given('clean-1'), 'clean-1');
    expect(audit).toEqual({
      sessionId: 'clean-1',
      version: 5,
      storedHash: audit.replayedHash,
      replayedHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      match: true,
      chain: { ok: true, firstBrokenVersion: null },
      differences: [],
    });
  });

  it('reports a tampered stored snapshot with the path of its difference', async () => {
    const deps = await given('snap-1');
    await pool.query(
      `UPDATE session_snapshots SET state = jsonb_set(state::jsonb, '{committed,0,content}', '"forged"')::json WHERE stream_id = $1 AND version = 3`,
      [streamOf('snap-1')],
    );
    const audit = await auditSession(deps, 'snap-1');
    expect(audit.match).toBe(false);
    expect(audit.chain).toEqual({ ok: true, firstBrokenVersion: null });
    expect(audit.differences).toContainEqual({ path: 'snapshot@3.committed[0].content', stored: 'forged', replayed: 'question 1' });
    // The cold replica served its view from that snapshot, so the served view differs too.
    expect(audit.differences).toContainEqual({ path: 'view.display[0].content', stored: 'forged', replayed: 'question 1' });
    expect(audit.storedHash).not.toBe(audit.replayedHash);
  });

  it('reports an event whose data was edited in the database as a broken chain at its version', async () => {
    const deps = await given('edit-1');
    await pool.query(
      `UPDATE events SET data = jsonb_set(data::jsonb, '{rows,1,content}', '"edited answer"') WHERE stream_id = $1 AND version = 4`,
      [streamOf('edit-1')],
    );
    const audit = await auditSession(deps, 'edit-1');
    expect(audit.match).toBe(false);
    expect(audit.chain).toEqual({ ok: false, firstBrokenVersion: 4 });
  });

  it('reports a stream head whose last hash was rewritten', async () => {
    const deps = await given('head-1');
    await pool.query(`UPDATE streams SET last_hash = repeat('0', 64) WHERE stream_id = $1`, [streamOf('head-1')]);
    expect((await auditSession(deps, 'head-1')).chain).toEqual({ ok: false, firstBrokenVersion: 5 });
  });

  it('reports a tampered index row and summary row field by field', async () => {
    const deps = await given('rows-1');
    await pool.query(`UPDATE session_index SET message_count = 99, status = 'archived' WHERE session_id = 'rows-1'`);
    await pool.query(`UPDATE session_summaries SET data = jsonb_set(data, '{title}', '"Renamed"') WHERE stream_id = $1`, [
      streamOf('rows-1'),
    ]);
    const audit = await auditSession(deps, 'rows-1');
    expect(audit.differences).toEqual([
      { path: 'summary.title', stored: 'Renamed', replayed: 'Session rows-1' },
      { path: 'index.messageCount', stored: 99, replayed: 8 },
      { path: 'index.status', stored: 'archived', replayed: 'active' },
    ]);
  });

  it('reports an index row missing once the projector has passed the session', async () => {
    const deps = await given('gone-1');
    await pool.query(`DELETE FROM session_index WHERE session_id = 'gone-1'`);
    expect((await auditSession(deps, 'gone-1')).differences).toEqual([{ path: 'index.version', stored: undefined, replayed: 5 }]);
  });

  it('does not count an index the projector has not reached yet as a difference', async () => {
    const views = newViews(store, pool);
    await writeSession(newWriter(store, views), 'lag-1', 1);
    expect((await auditSession({ pool, store, views }, 'lag-1')).match).toBe(true);
  });

  it('refuses a session that was never started', async () => {
    await expect(auditSession({ pool, store, views: newViews(store, pool) }, 'nobody')).rejects.toBeInstanceOf(
      AuditSessionNotFoundError,
    );
  });
});
