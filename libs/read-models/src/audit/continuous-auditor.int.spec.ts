import type pg from 'pg';
import type { EventStore } from '#event-store';
import { useTestDatabase } from '../../../../test/support/database.js';
import { newViews, newWriter, writeSession } from './audit.fixtures.js';
import { ContinuousAuditor } from './continuous-auditor.js';

const db = useTestDatabase();
let pool: pg.Pool;
let store: EventStore;
beforeAll(() => {
  ({ pool, store } = db);
});

describe('the continuous auditor, pass by pass', () => {
  it('verifies at most its bound of changed sessions per pass, then the rest, then nothing until a session changes', async () => {
    const views = newViews(store, pool);
    const writer = newWriter(store, views);
    for (const id of ['pass-a', 'pass-b', 'pass-c']) await writeSession(writer, id, 2);
    const lags: number[] = [];
    const passes: { busySeconds: number; sessions: number }[] = [];
    const auditor = new ContinuousAuditor(
      { pool, store, views },
      { sessionsPerPass: 2, onLag: (events) => lags.push(events), onPass: (busySeconds, sessions) => passes.push({ busySeconds, sessions }) },
    );
    const first = await auditor.pass();
    // Sessions of earlier tests in this database come first; every pass takes at most two.
    expect(first.length).toBeLessThanOrEqual(2);
    const seen = new Set(first.map((audit) => audit.sessionId));
    for (let guard = 0; guard < 20 && lags.at(-1) !== 0; guard += 1) {
      const next = await auditor.pass();
      expect(next.length).toBeLessThanOrEqual(2);
      for (const audit of next) seen.add(audit.sessionId);
    }
    expect([...seen]).toEqual(expect.arrayContaining(['pass-a', 'pass-b', 'pass-c']));
    expect(await auditor.pass()).toEqual([]);
    // Each pass reports its audits' own CPU: some for a pass that verified sessions, none for an empty one.
    expect(passes).toHaveLength(lags.length);
    expect(passes[0]!.sessions).toBe(first.length);
    expect(passes[0]!.busySeconds).toBeGreaterThan(0);
    expect(passes.at(-1)).toEqual({ busySeconds: 0, sessions: 0 });
    await writer.write('pass-b', () => ({ events: [{ type: 'MessagesRecorded', data: { rows: [{ role: 'user', content: 'later', timestamp: 2_000_000_000 }] } }] }));
    const again = await auditor.pass();
    expect(again.map((audit) => [audit.sessionId, audit.match])).toEqual([['pass-b', true]]);
  });

  it('stops a pass at its replay budget, but always verifies the pass\'s first session', async () => {
    const views = newViews(store, pool);
    const writer = newWriter(store, views);
    const auditor = new ContinuousAuditor({ pool, store, views }, { sessionsPerPass: 10, replayBudget: 1 });
    while ((await auditor.pass()).length > 0);
    for (const id of ['budget-a', 'budget-b']) await writeSession(writer, id, 2);
    expect((await auditor.pass()).map((audit) => audit.sessionId)).toEqual(['budget-a']);
    expect((await auditor.pass()).map((audit) => audit.sessionId)).toEqual(['budget-b']);
    expect(await auditor.pass()).toEqual([]);
  });

  it('catches up on sessions written in turns: each audited once, one a pass, and the checkpoint passes them all', async () => {
    const views = newViews(store, pool);
    const writer = newWriter(store, views);
    const audited: string[] = [];
    const lags: number[] = [];
    const auditor = new ContinuousAuditor(
      { pool, store, views },
      { sessionsPerPass: 10, replayBudget: 1, onVerified: (audit) => audited.push(audit.sessionId), onLag: (events) => lags.push(events) },
    );
    while ((await auditor.pass()).length > 0);
    const ids = ['turns-a', 'turns-b', 'turns-c'];
    for (const id of ids) await writeSession(writer, id, 2);
    // Streaming sessions interleave in the log: a, b, c, a, b, c, …
    for (let turn = 0; turn < 6; turn += 1) {
      for (const id of ids) {
        await writer.write(id, () => ({
          events: [{ type: 'MessagesRecorded', data: { rows: [{ role: 'user', content: `turn ${turn}`, timestamp: 2_000_000_000 + turn }] } }],
        }));
      }
    }
    audited.length = 0;
    for (const _ of ids) await auditor.pass();
    // The budget lets one session through a pass; an audit at the head covers the session's later turns, so the
    // three passes leave nothing behind (moving only to the next session's first event, they stalled a turn a pass).
    expect(audited).toEqual(ids);
    expect(lags.at(-1)).toBe(0);
    expect(await auditor.pass()).toEqual([]);
  });
});
