import type pg from 'pg';
import { canonicalJson, evolveAll, initialSessionState, projectSession, type SessionEvent, toSessionStreamId } from '#domain';
import type { EventStore } from '#event-store';
import { useTestDatabase } from '../../../test/support/database.js';
import { exchange, startedEvent, T0 } from './audit/audit.fixtures.js';
import { IncrementalSessionAudits } from './audit/incremental-session-audit.js';
import { auditSession } from './audit/session-audit.js';
import { auditAll } from './audit/store/audit-all.js';
import { SessionViews } from './session-views.js';
import { SnapshotStore } from './snapshot-store.js';

const db = useTestDatabase();
let pool: pg.Pool;
let store: EventStore;
beforeAll(() => {
  ({ pool, store } = db);
});

const token = (runId: string, seq: number, text: string): SessionEvent => ({
  type: 'JournalEventRecorded',
  data: { runId, seq, event: 'token', payload: { text }, createdAt: T0 + 1000 + seq },
});

/**
 * An interrupted turn early on (its journal stays live: its rows derive from it), 300 exchanges (so the two
 * journals lie in ranges read apart), then a pending turn streaming 40 tokens, one of them late and out of order.
 */
function streamingSession(sessionId: string): SessionEvent[] {
  const events: SessionEvent[] = [
    startedEvent(sessionId, 'streaming'),
    { type: 'UserMessageSubmitted', data: { runId: 'r1', text: 'first', attachments: [], source: null, submittedAt: T0 + 1 } },
    token('r1', 1, 'early-a'),
    token('r1', 2, 'early-b'),
    { type: 'TurnInterrupted', data: { runId: 'r1', cause: 'lost_worker_bookkeeping', detectedAt: T0 + 5, evidence: { now: T0 + 5 } } },
  ];
  for (let n = 1; n <= 300; n += 1) events.push(exchange(n));
  events.push({ type: 'UserMessageSubmitted', data: { runId: 'r2', text: 'second', attachments: [], source: null, submittedAt: T0 + 900 } });
  for (let seq = 1; seq <= 40; seq += 1) if (seq !== 7) events.push(token('r2', seq, `tok-${seq}`));
  events.push(token('r2', 7, 'tok-7-late'));
  return events;
}

const quietViews = () => new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: 1_000_000, idleSnapshotMs: 0 });
const fold = (events: readonly SessionEvent[]) => evolveAll(initialSessionState(), events);

describe('snapshots leave the live journals in the stream', () => {
  const sessionId = 'snap-journals';
  const streamId = toSessionStreamId(sessionId);
  const events = streamingSession(sessionId);
  const head = events.length;
  const midStream = head - 20;

  beforeAll(async () => {
    await store.append(streamId, events);
    const snapshots = new SnapshotStore(pool);
    await snapshots.save(streamId, midStream, fold(events.slice(0, midStream)));
    await snapshots.save(streamId, head, fold(events));
  });

  it('stores no journal event of the pending or the interrupted turn', async () => {
    const rows = await pool.query<{ state: string }>('SELECT state::text AS state FROM session_snapshots WHERE stream_id = $1', [streamId]);
    expect(rows.rows).toHaveLength(2);
    for (const { state } of rows.rows) {
      expect(state).not.toMatch(/tok-|early-/);
      expect(state).toContain('"journalSpan"');
    }
  });

  it('a cold read gets the fold state, its view, and the view at a version inside the stream', async () => {
    const views = quietViews();
    const loaded = await views.load(sessionId);
    expect(loaded.version).toBe(head);
    expect(canonicalJson(loaded.state)).toBe(canonicalJson(fold(events)));
    expect(canonicalJson((await quietViews().view(sessionId)).view)).toBe(canonicalJson(projectSession(events)));
    const past = await quietViews().view(sessionId, midStream + 3);
    expect(canonicalJson(past.view)).toBe(canonicalJson(projectSession(events.slice(0, midStream + 3))));
    // The pending turn's streaming output comes from the journal read back from the stream.
    expect(JSON.stringify(loaded.state)).toContain('tok-7-late');
  });

  it('audits match: one session, the whole store, and again from the verified snapshot', async () => {
    const views = quietViews();
    expect(await auditSession({ pool, store, views }, sessionId)).toMatchObject({ match: true });
    const report = await auditAll({ pool }, { pageSize: 50 });
    expect(report.mismatches.filter((m) => m.sessionId === sessionId)).toEqual([]);
    const audits = new IncrementalSessionAudits({ pool, store, views }, { fullEveryMs: 60_000, now: () => 1_000 });
    expect(await audits.audit(sessionId)).toMatchObject({ full: true, audit: { match: true } });
    expect(await audits.audit(sessionId)).toMatchObject({ full: false, replayed: 0, audit: { match: true } });
  });

  it('a snapshot that stores a live journal is a mismatch', async () => {
    const forged = JSON.stringify(fold(events));
    await pool.query('UPDATE session_snapshots SET state = $3::json WHERE stream_id = $1 AND version = $2', [streamId, head, forged]);
    const audit = await auditSession({ pool, store, views: quietViews() }, sessionId);
    expect(audit.match).toBe(false);
    expect(audit.differences[0].path).toMatch(new RegExp(`^snapshot@${head}\\.runs`));
    const report = await auditAll({ pool }, { pageSize: 50 });
    expect(report.mismatches.map((m) => m.sessionId)).toContain(sessionId);
  });
});
