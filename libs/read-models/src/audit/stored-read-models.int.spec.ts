import pg from 'pg';
import { type SessionEvent, toSessionStreamId } from '#domain';
import type { EventStore } from '#event-store';
import { useTestDatabase } from '../../../../test/support/database.js';
import { SessionIndexProjector } from '../session-index/session-index.projector.js';
import { SNAPSHOT_SCHEMA_VERSION } from '../snapshot-store.js';
import { newViews, newWriter, T0, writeSession } from './audit.fixtures.js';
import { auditSession } from './session-audit.js';
import { readIndexRow, readSnapshots } from './stored-read-models.js';

const db = useTestDatabase();
let pool: pg.Pool;
let store: EventStore;
beforeAll(() => {
  ({ pool, store } = db);
});

const submitted = (runId: string): SessionEvent => ({
  type: 'UserMessageSubmitted',
  data: { runId, text: 'Write the summary', attachments: [{ name: 'notes.md' }], source: 'web', submittedAt: T0 + 50 },
});
const interrupted = (runId: string): SessionEvent => ({
  type: 'TurnInterrupted',
  data: { runId, cause: 'lost_worker_bookkeeping', detectedAt: T0 + 90, evidence: { now: T0 + 90 } },
});

describe('reading stored read models', () => {
  it('lists snapshots in numeric version order (9 before 10, not as text)', async () => {
    const streamId = toSessionStreamId('order-1');
    for (const version of [10, 9, 2]) {
      await pool.query(`INSERT INTO session_snapshots (stream_id, version, schema_version, state) VALUES ($1, $2, $3, $4)`, [
        streamId,
        version,
        SNAPSHOT_SCHEMA_VERSION,
        JSON.stringify({ at: version }),
      ]);
    }
    expect(await readSnapshots(pool, streamId)).toEqual([
      { version: 2, state: { at: 2 } },
      { version: 9, state: { at: 9 } },
      { version: 10, state: { at: 10 } },
    ]);
  });

  it('reads back the pending turn and marker counts the projector stored, and the audit compares them', async () => {
    const views = newViews(store, pool);
    const writer = newWriter(store, views);
    await writeSession(writer, 'pend-1', 1);
    await writer.write('pend-1', () => ({ events: [submitted('run-1')] }));
    await writeSession(writer, 'mark-1', 1);
    await writer.write('mark-1', () => ({ events: [submitted('run-2')] }));
    await writer.write('mark-1', () => ({ events: [interrupted('run-2')] }));
    await new SessionIndexProjector(pool, store, views).catchUp();

    expect(await readIndexRow(pool, 'pend-1')).toMatchObject({
      version: 3,
      status: 'pending',
      pendingTurn: { runId: 'run-1', text: 'Write the summary', attachments: [{ name: 'notes.md' }], source: 'web', submittedAt: T0 + 50 },
      markers: { pending: 0, recovered: 0, noOutput: 0, neutral: 0 },
    });
    expect(await readIndexRow(pool, 'mark-1')).toMatchObject({
      version: 4,
      status: 'recovering',
      pendingTurn: null,
      markers: { pending: 1, recovered: 0, noOutput: 0, neutral: 0 },
    });
    const deps = { pool, store, views: newViews(store, pool) };
    expect((await auditSession(deps, 'pend-1')).differences).toEqual([]);
    expect((await auditSession(deps, 'mark-1')).differences).toEqual([]);

    await pool.query(
      `UPDATE session_index SET markers = jsonb_set(markers, '{pending}', '0'), pending_turn = '{"runId":"forged"}'
        WHERE session_id = 'mark-1'`,
    );
    expect((await auditSession(deps, 'mark-1')).differences).toEqual([
      { path: 'index.markers.pending', stored: 0, replayed: 1 },
      { path: 'index.pendingTurn', stored: { runId: 'forged' }, replayed: null },
    ]);
  });
});
