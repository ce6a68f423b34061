import type pg from 'pg';
import { evolveAll, initialSessionState, type SessionEvent, toSessionStreamId } from '#domain';
import type { EventStore, SessionKeyring } from '#event-store';
import { useTestDatabase } from '../../../../test/support/database.js';
import { SessionViews } from '../session-views.js';
import type { WorkTally } from '../work-tally.js';
import { SnapshotStore } from '../snapshot-store.js';
import { exchange, newWriter, writeSession } from './audit.fixtures.js';
import { IncrementalSessionAudits } from './incremental-session-audit.js';

const db = useTestDatabase();
let pool: pg.Pool;
let store: EventStore;
beforeAll(() => {
  ({ pool, store } = db);
});

/** Snapshots only where a test saves one (no automatic or idle snapshot races the assertions). */
const quietViews = () => new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: 1_000_000, idleSnapshotMs: 0 });

async function saveSnapshot(sessionId: string, version: number): Promise<void> {
  const events = await store.readStream(toSessionStreamId(sessionId), { to: version });
  const state = evolveAll(initialSessionState(), events.map((e) => ({ type: e.type, data: e.data }) as SessionEvent));
  await new SnapshotStore(pool).save(toSessionStreamId(sessionId), version, state);
}

/** A session of 5 events with a snapshot at 3, audited once (in full); the clock is the test's. */
async function given(sessionId: string) {
  const views = quietViews();
  const writer = newWriter(store, views);
  await writeSession(writer, sessionId, 4);
  await saveSnapshot(sessionId, 3);
  const clock = { now: 1_000 };
  const audits = new IncrementalSessionAudits({ pool, store, views }, { fullEveryMs: 60_000, now: () => clock.now });
  const first = await audits.audit(sessionId);
  const append = (n: number) => writer.write(sessionId, () => ({ events: [exchange(n)] }));
  return { audits, first, append, clock };
}

const tamper = (sessionId: string, version: number) =>
  pool.query(`UPDATE events SET data = jsonb_set(data::jsonb, '{rows,0,content}', '"edited"') WHERE stream_id = $1 AND version = $2`, [
    toSessionStreamId(sessionId),
    version,
  ]);

describe('auditing a session again, from the snapshot an earlier audit verified', () => {
  it('audits in full the first time, then replays only the events after the verified snapshot', async () => {
    const { audits, first, append } = await given('inc-1');
    expect(first).toMatchObject({ replayed: 5, full: true, audit: { version: 5, match: true } });
    await append(5);
    // Three events to replay after the snapshot at 3, and the view of all six to render (a quarter each).
    expect(await audits.plan('inc-1')).toBe(3 + 2);
    const again = await audits.audit('inc-1');
    expect(again).toMatchObject({ replayed: 3, full: false, audit: { version: 6, match: true, differences: [] } });
    expect(again.audit.storedHash).toBe(again.audit.replayedHash);
  });

  it('finds an edited event after the snapshot, appended before or since the last audit', async () => {
    const { audits, append } = await given('inc-2');
    await append(5);
    await tamper('inc-2', 4);
    const found = await audits.audit('inc-2');
    expect(found).toMatchObject({ full: false, audit: { match: false, chain: { ok: false, firstBrokenVersion: 4 } } });
    // A mismatch forgets the session: the next audit is a full one, and reports it again.
    expect(await audits.audit('inc-2')).toMatchObject({ full: true, audit: { match: false, chain: { firstBrokenVersion: 4 } } });
  });

  it('does not see an edit at or before the verified snapshot until its next full audit', async () => {
    const { audits, append, clock } = await given('inc-3');
    await tamper('inc-3', 2);
    await append(5);
    expect(await audits.audit('inc-3')).toMatchObject({ full: false, audit: { match: true } });
    clock.now += 60_000;
    await append(6);
    expect(await audits.audit('inc-3')).toMatchObject({ full: true, audit: { match: false, chain: { ok: false, firstBrokenVersion: 2 } } });
  });

  it('does not resume from a snapshot row changed since it was verified, and reports the change', async () => {
    const { audits, append } = await given('inc-4');
    await pool.query(`UPDATE session_snapshots SET state = jsonb_set(state::jsonb, '{title}', '"forged"')::json WHERE stream_id = $1`, [
      toSessionStreamId('inc-4'),
    ]);
    await append(5);
    const found = await audits.audit('inc-4');
    expect(found.full).toBe(true);
    expect(found.audit.match).toBe(false);
    expect(found.audit.differences).toContainEqual({ path: 'snapshot@3.title', stored: 'forged', replayed: 'Session inc-4' });
  });

  it('compares the summary row written since the snapshot', async () => {
    const { audits, append } = await given('inc-5');
    await append(5);
    await pool.query(`UPDATE session_summaries SET data = jsonb_set(data::jsonb, '{messageCount}', '99') WHERE stream_id = $1`, [
      toSessionStreamId('inc-5'),
    ]);
    const found = await audits.audit('inc-5');
    expect(found).toMatchObject({ full: false, audit: { match: false } });
    expect(found.audit.differences.map((d) => d.path)).toContain('summary.messageCount');
  });
});

describe("an audit's busy time", () => {
  it('counts its own work, not its wait for the session key', async () => {
    const views = quietViews();
    await writeSession(newWriter(store, views), 'inc-busy-1', 4);
    // A sealed snapshot row: opening it asks the keyring, which answers 300 ms late (and has no key: it stays shut).
    await new SnapshotStore(pool).save(toSessionStreamId('inc-busy-1'), 3, evolveAll(initialSessionState(), []));
    await pool.query(`UPDATE session_snapshots SET state = $2 WHERE stream_id = $1`, [toSessionStreamId('inc-busy-1'), JSON.stringify({ sealed: '1:AAAA' })]);
    let asked = 0;
    const slowKeyring = {
      keyFor: async () => {
        asked += 1;
        await new Promise((resolve) => setTimeout(resolve, 300));
        return null;
      },
    } as unknown as SessionKeyring;
    const audits = new IncrementalSessionAudits({ pool, store, views, keyring: slowKeyring });
    const started = performance.now();
    const result = await audits.audit('inc-busy-1');
    expect(asked).toBeGreaterThan(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(result.busySeconds).toBeLessThan(0.2);
  });

  it("counts the served view's fold and render when the view is not cached", async () => {
    await writeSession(newWriter(store, quietViews()), 'inc-busy-2', 4);
    const cold = quietViews();
    const given: (WorkTally | undefined)[] = [];
    let folded = 0;
    const views = {
      async view(sessionId: string, at?: number, tally?: WorkTally) {
        given.push(tally);
        const before = tally?.ms ?? 0;
        const served = await cold.view(sessionId, at, tally);
        folded += (tally?.ms ?? 0) - before;
        return served;
      },
    };
    const result = await new IncrementalSessionAudits({ pool, store, views }).audit('inc-busy-2');
    expect(result.audit.match).toBe(true);
    expect(given).toHaveLength(1);
    expect(given[0]).toBeDefined();
    expect(folded).toBeGreaterThan(0);
    expect(result.busySeconds * 1000).toBeGreaterThanOrEqual(folded);
  });
});
