import pg from 'pg';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { canonicalJson, evolveAll, initialSessionState, projectSession, type SessionEvent, toSessionStreamId } from '#domain';
import { InMemoryEventStore, PostgresEventStore } from '#event-store';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { estimatedBytes } from './session-state.cache.js';
import { SessionViews } from './session-views.js';
import { snapshotDue } from './snapshot.scheduler.js';
import { SnapshotStore } from './snapshot-store.js';

let database: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

function sessionEvents(turns: number): SessionEvent[] {
  const events: SessionEvent[] = [
    { type: 'SessionStarted', data: { sessionId: 'views', title: 'Views', parentSessionId: null, createdAt: 1 } },
  ];
  for (let i = 0; i < turns; i++) {
    events.push({
      type: 'MessagesRecorded',
      data: {
        rows: [
          { role: 'user', content: `question ${i}`, timestamp: 10 + i * 2 },
          { role: 'assistant', content: `answer ${i}`, timestamp: 11 + i * 2 },
        ],
      },
    });
  }
  return events;
}

describe('session views (snapshot + tail)', () => {
  it('fold from the newest snapshot plus the tail equals a full replay, at every version', async () => {
    const store = new PostgresEventStore(pool);
    const snapshots = new SnapshotStore(pool);
    const events = sessionEvents(34);
    const streamId = toSessionStreamId('views');
    for (const event of events) await store.append(streamId, [event]);
    // Snapshots at versions 9, 10 and 30: numeric order must pick 30 (a text sort would pick 9).
    const writer = new SessionViews(store, snapshots, { snapshotEvery: 1000 });
    for (const version of [9, 10, 30]) {
      const { state } = await writer.load('views', version);
      await snapshots.save(streamId, version, state);
    }
    expect((await snapshots.latest(streamId))?.version).toBe(30);
    expect((await snapshots.latest(streamId, 29))?.version).toBe(10);

    const reader = new SessionViews(store, snapshots, { snapshotEvery: 1000 });
    for (const at of [1, 5, 9, 10, 11, 29, 30, 31, 35]) {
      const { version, view } = await reader.view('views', at);
      expect(version).toBe(at);
      expect(canonicalJson(view)).toBe(canonicalJson(projectSession(events.slice(0, at))));
    }
    const latest = await new SessionViews(store, snapshots, { snapshotEvery: 1000 }).view('views');
    expect(latest.version).toBe(35);
    expect(latest.view.display).toHaveLength(68);
    expect(canonicalJson(latest.view)).toBe(canonicalJson(projectSession(events)));
  });

  it('snapshots a session that went quiet between two due snapshots', async () => {
    const store = new PostgresEventStore(pool);
    const snapshots = new SnapshotStore(pool);
    // The quiet period is longer than the appends below take on a loaded machine (at 40 ms, a full npm test run once
    // saw the snapshot written between two of them); the wait after them covers it.
    const views = new SessionViews(store, snapshots, { snapshotEvery: 1000, idleSnapshotMs: 400 });
    const streamId = toSessionStreamId('quiet');
    const events = sessionEvents(4).map((e, i) => (i === 0 ? { ...e, data: { ...e.data, sessionId: 'quiet' } } : e)) as SessionEvent[];
    let version = 0;
    for (const event of events) {
      version = (await store.append(streamId, [event])).version;
      views.remember('quiet', version, (await new SessionViews(store, snapshots, { snapshotEvery: 1000 }).load('quiet')).state);
    }
    expect(await snapshots.latest(streamId)).toBeNull();
    for (let i = 0; i < 250 && !(await snapshots.latest(streamId)); i++) await new Promise((r) => setTimeout(r, 20));
    expect((await snapshots.latest(streamId))?.version).toBe(version);
  });
});

describe('when a snapshot is due', () => {
  it('takes the first after `every` events, then spaces them by a quarter of the stream', () => {
    expect(snapshotDue(0, 199, 200)).toBe(false);
    expect(snapshotDue(0, 200, 200)).toBe(true);
    expect(snapshotDue(800, 999, 200)).toBe(false);
    expect(snapshotDue(800, 1000, 200)).toBe(true);
    expect(snapshotDue(40_000, 49_999, 200)).toBe(false);
    expect(snapshotDue(40_000, 50_000, 200)).toBe(true);
  });
});

describe('the in-process caches, bounded in bytes', () => {
  it('keeps fold states within half the budget, dropping the least recently written; a dropped one is loaded again', async () => {
    const store = new PostgresEventStore(pool);
    const sizes: Record<string, number> = {};
    // States get half the budget: room for two 101-event sessions' states (estimatedBytes(101) each), not three.
    const budget = 2 * (2 * estimatedBytes(101) + 100);
    const reloads: [string, number][] = [];
    const views = new SessionViews(store, new SnapshotStore(pool), {
      snapshotEvery: 1_000_000,
      idleSnapshotMs: 0,
      cacheBytes: budget,
      onCacheBytes: (cache, bytes) => (sizes[cache] = bytes),
      onStateReload: (sessionId, eventsRead) => reloads.push([sessionId, eventsRead]),
    });
    const states = [];
    for (const id of ['bound-a', 'bound-b', 'bound-c']) {
      const events = sessionEvents(100).map((e) => (e.type === 'SessionStarted' ? { ...e, data: { ...e.data, sessionId: id } } : e));
      await store.append(toSessionStreamId(id), events.map((e) => ({ type: e.type, data: e.data })), { expectedVersion: 0 });
      const loaded = await views.load(id);
      states.push(loaded.state);
      expect(sizes.states).toBeLessThanOrEqual(budget / 2);
    }
    expect(sizes.states).toBe(2 * estimatedBytes(101));
    // bound-a was the least recently used: no longer held, so the writer's load goes to the store.
    expect((await views.loadLatest('bound-a')).fresh).toBe(true);
    expect((await views.loadLatest('bound-c')).fresh).toBe(false);
    expect(canonicalJson((await views.loadLatest('bound-a')).state)).toBe(canonicalJson(states[0]));
    // First loads are no reloads; bound-a's, after it was dropped for room, is (all 101 events read again).
    expect(reloads).toEqual([['bound-a', 101]]);
  });

  it('says when a state dropped for room is loaded again, and that a pending turn is read back whole', async () => {
    const store = new PostgresEventStore(pool);
    const snapshots = new SnapshotStore(pool);
    const reloads: [string, number][] = [];
    // Room for one of these sessions' states, not two.
    const views = new SessionViews(store, snapshots, { snapshotEvery: 1_000_000, idleSnapshotMs: 0, cacheBytes: 2 * estimatedBytes(310), onStateReload: (id, n) => reloads.push([id, n]) });
    for (const id of ['turn-a', 'turn-b']) {
      const stream = toSessionStreamId(id);
      const events: SessionEvent[] = [
        { type: 'SessionStarted', data: { sessionId: id, title: id, parentSessionId: null, createdAt: 1 } },
        { type: 'UserMessageSubmitted', data: { runId: `${id}-run`, text: 'go', attachments: [], source: null, submittedAt: 2 } },
      ];
      for (let seq = 1; seq <= 300; seq += 1) events.push({ type: 'JournalEventRecorded', data: { runId: `${id}-run`, seq, event: 'token', payload: { text: 't' }, createdAt: 3 } } as SessionEvent);
      await store.append(stream, events.map((e) => ({ type: e.type, data: e.data })), { expectedVersion: 0 });
      // A snapshot at the head: its stored form leaves the pending turn's journal in the stream.
      await snapshots.save(stream, 302, (await views.load(id)).state);
    }
    expect(reloads).toEqual([]);
    // turn-a was dropped when turn-b came in: loading it again reads its 300 journal events back, snapshot or not.
    await views.load('turn-a');
    expect(reloads).toEqual([['turn-a', 300]]);
    // Told once per drop: a load of a state still held is no reload.
    await views.load('turn-a');
    expect(reloads).toHaveLength(1);
    // A state larger than the states' whole budget is never kept: every load after the first is a reload.
    const small = new SessionViews(store, snapshots, { snapshotEvery: 1_000_000, idleSnapshotMs: 0, cacheBytes: 2 * estimatedBytes(100), onStateReload: (id, n) => reloads.push([id, n]) });
    await small.load('turn-b');
    await small.load('turn-b');
    expect(reloads).toEqual([['turn-a', 300], ['turn-b', 300]]);
  });

  it('keeps nothing with a budget of 0, and still answers every load from the store', async () => {
    const store = new PostgresEventStore(pool);
    const views = new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: 1_000_000, idleSnapshotMs: 0, cacheBytes: 0 });
    await store.append(toSessionStreamId('bound-zero'), sessionEvents(2).map((e) => ({ type: e.type, data: e.data })), { expectedVersion: 0 });
    expect((await views.load('bound-zero')).version).toBe(3);
    expect((await views.loadLatest('bound-zero')).fresh).toBe(true);
  });

  it('keeps a view without the fold state it was rendered from (a state the states cache dropped is freed)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const store = new InMemoryEventStore();
    const id = 'bound-view';
    // A streaming turn: 300 journal events (a state of estimatedBytes(302)) rendered to one row.
    const events: SessionEvent[] = [
      { type: 'SessionStarted', data: { sessionId: id, title: null, parentSessionId: null, createdAt: 1 } },
      { type: 'UserMessageSubmitted', data: { runId: 'run', text: 'hello', attachments: [], source: null, submittedAt: 2 } },
      ...Array.from({ length: 300 }, (_, i): SessionEvent => ({
        type: 'JournalEventRecorded',
        data: { runId: 'run', seq: i + 1, event: 'token', payload: { text: `t${i} ` }, createdAt: 3 },
      })),
    ];
    await store.append(toSessionStreamId(id), events.map((e) => ({ type: e.type, data: e.data })), { expectedVersion: 0 });
    // States get half of 16 kB (the state does not fit), views a quarter (the view does).
    const sizes: Record<string, number> = {};
    const views = new SessionViews(store, new SnapshotStore(pool), {
      snapshotEvery: 1_000_000,
      idleSnapshotMs: 0,
      cacheBytes: 16 * 1024,
      onCacheBytes: (cache, bytes) => (sizes[cache] = bytes),
    });
    expect(estimatedBytes(302)).toBeGreaterThan(8 * 1024);
    const held = await (async () => {
      const { state, view } = await views.view(id);
      return { state: new WeakRef(state), rows: view.display.length };
    })();
    expect(sizes.states ?? 0).toBe(0);
    expect(sizes.views).toBeGreaterThan(0);
    // (No deref() before a collection: a WeakRef read keeps its target alive until the job ends.)
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(held.state.deref()).toBeUndefined();
    // The kept view still answers the next read of that version, and a token later renders from it.
    expect((await views.view(id)).view.display.length).toBe(held.rows);
  });
});

describe('a settled run’s journal, archived in the state', () => {
  const id = 'views-journal';
  const streamId = toSessionStreamId(id);
  const journal = (runId: string, seq: number, text: string): SessionEvent => ({
    type: 'JournalEventRecorded',
    data: { runId, seq, event: 'token', payload: { text }, createdAt: 20 + seq },
  });
  const events: SessionEvent[] = [
    { type: 'SessionStarted', data: { sessionId: id, title: null, parentSessionId: null, createdAt: 1 } },
    { type: 'UserMessageSubmitted', data: { runId: 'r1', text: 'hi', attachments: [], source: null, submittedAt: 20 } },
    journal('r1', 1, 'Hel'),
    journal('other', 1, 'not this run'),
    journal('r1', 2, 'lo'),
    { type: 'TurnSettled', data: { runId: 'r1', rows: [{ role: 'assistant', content: 'Hello', timestamp: 23 }], settledAt: 23 } },
    journal('r1', 4, ' late'),
  ];

  it('keeps only the seqs and the span in the state, and reads the events back from the stream, cold', async () => {
    const store = new PostgresEventStore(pool);
    const snapshots = new SnapshotStore(pool);
    await store.append(streamId, events);
    const { state } = await new SessionViews(store, snapshots, { snapshotEvery: 1000 }).load(id);
    expect(state.version).toBe(events.length);
    await snapshots.save(streamId, events.length, state);
    const run = (await new SessionViews(store, snapshots, { snapshotEvery: 1000 }).loadRun(id, 'r1')).run;
    expect(run?.archivedSeqs).toEqual([[1, 2], [4, 4]]);
    expect(run?.journalSpan).toEqual([3, 7]);
    expect(run?.journal.map((event) => [event.seq, event.payload?.['text']])).toEqual([
      [1, 'Hel'],
      [2, 'lo'],
      [4, ' late'],
    ]);
    // A span that does not hold every kept seq (a state the fold could not vouch for) reads the whole stream.
    const skewed = JSON.stringify(state).replace('"journalSpan":[3,7]', '"journalSpan":[6,7]');
    expect(skewed).not.toBe(JSON.stringify(state));
    await pool.query('UPDATE session_snapshots SET state = $2::json WHERE stream_id = $1', [streamId, skewed]);
    const again = (await new SessionViews(store, snapshots, { snapshotEvery: 1000 }).loadRun(id, 'r1')).run;
    expect(again?.journalSpan).toEqual([6, 7]);
    expect(again?.journal.map((event) => event.seq)).toEqual([1, 2, 4]);
    expect(await new SessionViews(store, snapshots, { snapshotEvery: 1000 }).loadRun('never-started', 'r1')).toEqual({ exists: false, run: undefined });
  });

  it('reads it back as the fold kept it: in seq order, the first delivery of a seq', async () => {
    const store = new PostgresEventStore(pool);
    const late = 'views-journal-late';
    const [started, submitted, hel, , lo, settled] = events;
    await store.append(toSessionStreamId(late), [started, submitted, lo, hel, journal('r1', 2, 'repeat'), settled]);
    const run = (await new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: 1000 }).loadRun(late, 'r1')).run;
    expect(run?.archivedSeqs).toEqual([[1, 2]]);
    expect(run?.journal.map((event) => [event.seq, event.payload?.['text']])).toEqual([
      [1, 'Hel'],
      [2, 'lo'],
    ]);
  });
});

describe('a snapshot saved after the session was erased', () => {
  it('is not stored: a replica that folded the state before the erasure cannot put its content back', async () => {
    const store = new PostgresEventStore(pool);
    const snapshots = new SnapshotStore(pool);
    const streamId = toSessionStreamId('erased-late');
    const events = sessionEvents(2).map((event) => (event.type === 'SessionStarted' ? { ...event, data: { ...event.data, sessionId: 'erased-late' } } : event));
    for (const event of events) await store.append(streamId, [event]);
    const before = evolveAll(initialSessionState(), events);
    await snapshots.save(streamId, 2, before);
    await store.append(streamId, [{ type: 'SessionErased', data: { at: 50, reason: 'user request', requestedBy: 'admin', dataKeyId: null } }]);
    await snapshots.purge(streamId);
    // The state at version 3 (before the erasure at 4), saved late by a replica that folded it then.
    await snapshots.save(streamId, 3, before);
    const rows = await pool.query('SELECT version FROM session_snapshots WHERE stream_id = $1', [streamId]);
    expect(rows.rows).toEqual([]);
  });
});
