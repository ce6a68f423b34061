import pg from 'pg';
import { type DomainError, evolve, evolveAll, initialSessionState, type SessionEvent, type StateRow, toSessionStreamId } from '#domain';
import type { EventStore } from '#event-store';
import {
  createSessionEventStore,
  findRecoveryCandidates,
  readCheckpoint,
  SessionIndexProjector,
  SessionViews,
  SnapshotStore,
  writeCheckpoint,
} from '#read-models';
import { SessionWriter } from '#session-commands';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { LivenessRegistry } from './liveness-registry.js';
import type { RecoveryDecision } from './recovery-policy.js';
import { RecoverySupervisor, SweepTimeError } from './recovery-supervisor.js';

const T0 = 1_800_000_000;

let database: TestDatabase;
let pool: pg.Pool;
let store: EventStore;
let registry: LivenessRegistry;
let clock = T0;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 8 });
  store = await createSessionEventStore(pool);
  registry = new LivenessRegistry(pool);
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});
beforeEach(async () => {
  clock = T0;
  // Each test sees only its own sessions: earlier ones are marked projected, out of the index and not pending.
  await pool.query(`DELETE FROM session_index`);
  await pool.query(`UPDATE session_summaries SET pending = false`);
  const { checkpoint } = await store.readPositions({ after: await readCheckpoint(pool, 'session_index'), limit: 1_000_000 });
  await writeCheckpoint(pool, 'session_index', checkpoint);
});

/** One replica: its own view cache and writer over the shared database. */
function replica(options: { store?: EventStore; decisions?: RecoveryDecision[]; pool?: pg.Pool } = {}) {
  const views = new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: 1000 });
  const writer = new SessionWriter(options.store ?? store, views);
  const supervisor = new RecoverySupervisor(options.pool ?? pool, store, registry, views, writer, {
    clock: () => clock,
    onDecision: (decision) => options.decisions?.push(decision),
  });
  return { views, supervisor };
}

/** Appends events as the writer does: with the fold state, so the inline summary row is written too. */
async function appendAsWriter(sessionId: string, events: readonly SessionEvent[]): Promise<void> {
  const state = evolveAll(initialSessionState(), events);
  await store.append(toSessionStreamId(sessionId), events.map((e) => ({ type: e.type, data: e.data, metadata: {} })), { context: { state } });
}

async function given(sessionId: string, ...events: SessionEvent[]): Promise<void> {
  await appendAsWriter(sessionId, [
    { type: 'SessionStarted', data: { sessionId, title: null, parentSessionId: null, createdAt: T0 - 100 } },
    ...events,
  ]);
}

const submitted = (runId: string, submittedAt = T0): SessionEvent => ({
  type: 'UserMessageSubmitted',
  data: { runId, text: 'Where is my answer?', attachments: [], source: null, submittedAt },
});

const typesOf = async (sessionId: string) => (await store.readStream(toSessionStreamId(sessionId))).map((e) => e.type);

describe('a sweep', () => {
  it('interrupts a stale pending turn that the async index has not seen yet', async () => {
    await given('lag-1', submitted('lag-run'));
    const decisions: RecoveryDecision[] = [];
    const result = await replica({ decisions }).supervisor.sweep(T0 + 31);
    expect(result).toEqual({ examined: 1, interrupted: 1, recoveredFromAgentStore: 0, gaveUp: 0, failed: 0 });
    const [, , decision] = await store.readStream(toSessionStreamId('lag-1'));
    expect(decision).toMatchObject({
      type: 'TurnInterrupted',
      data: { runId: 'lag-run', cause: 'lost_worker_bookkeeping', detectedAt: T0 + 31, evidence: { now: T0 + 31 } },
    });
    expect(decisions.map((d) => d.type)).toEqual(['TurnInterrupted']);
  });

  it('finds projected sessions through their summary row (a turn waits) and session_index status recovering', async () => {
    await given('indexed-1', submitted('indexed-run'));
    await given('quiet-1');
    await given('recovering-1');
    const { checkpoint } = await store.readPositions({ after: await readCheckpoint(pool, 'session_index'), limit: 1_000_000 });
    await writeCheckpoint(pool, 'session_index', checkpoint);
    await pool.query(
      `INSERT INTO session_index (stream_id, session_id, status, version)
       VALUES ('session-quiet-1', 'quiet-1', 'active', 1), ('session-recovering-1', 'recovering-1', 'recovering', 1)`,
    );
    const result = await replica().supervisor.sweep(T0 + 40);
    expect(result).toMatchObject({ examined: 2, interrupted: 1 });
  });

  it('uses the clock when no later now is asked, and leaves turns inside the grace alone', async () => {
    await given('grace-1', submitted('grace-run'));
    clock = T0 + 29;
    expect(await replica().supervisor.sweep()).toMatchObject({ examined: 1, interrupted: 0 });
    clock = T0 + 30;
    expect(await replica().supervisor.sweep()).toMatchObject({ interrupted: 1 });
  });

  it('refuses a now earlier than the clock and decides nothing', async () => {
    await given('early-1', submitted('early-run'));
    clock = T0 + 100;
    await expect(replica().supervisor.sweep(T0 + 99)).rejects.toBeInstanceOf(SweepTimeError);
    expect(await typesOf('early-1')).toEqual(['SessionStarted', 'UserMessageSubmitted']);
  });

  it('never touches a run with a live lease, and names a host restart as the cause', async () => {
    await given('lease-1', submitted('lease-run'));
    await registry.putLease({ runId: 'lease-run', sessionId: 'lease-1', hostId: 'host-1', ttlSeconds: 120, at: T0 });
    expect(await replica().supervisor.sweep(T0 + 60)).toMatchObject({ interrupted: 0 });
    await registry.hostStarted('host-1', T0 + 70);
    expect(await replica().supervisor.sweep(T0 + 80)).toMatchObject({ interrupted: 1 });
    const events = await store.readStream(toSessionStreamId('lease-1'));
    expect(events.at(-1)?.data).toMatchObject({
      cause: 'process_restart',
      evidence: { hostStartedAt: T0 + 70, lease: { hostId: 'host-1', status: 'released' } },
    });
  });

  it('skips a session that another session continues', async () => {
    await given('parent-1', submitted('parent-run'));
    await appendAsWriter('child-1', [{ type: 'SessionStarted', data: { sessionId: 'child-1', title: null, parentSessionId: 'parent-1', createdAt: T0 } }]);
    expect(await replica().supervisor.sweep(T0 + 3600)).toMatchObject({ examined: 2, interrupted: 0 });
  });

  it('gives up on a journal 86,400 s after the decision', async () => {
    await given('giveup-1', submitted('giveup-run'));
    const { supervisor } = replica();
    await supervisor.sweep(T0 + 31);
    expect(await supervisor.sweep(T0 + 31 + 86_399)).toMatchObject({ gaveUp: 0 });
    expect(await supervisor.sweep(T0 + 31 + 86_400)).toMatchObject({ examined: 1, gaveUp: 1 });
    expect(await typesOf('giveup-1')).toEqual(['SessionStarted', 'UserMessageSubmitted', 'TurnInterrupted', 'JournalRecoveryAbandoned']);
  });

  it('reports a decision the domain refuses (onRefused), never swallowing it silently', async () => {
    await given('refused-1', submitted('refused-run'));
    await replica().supervisor.sweep(T0 + 31);
    const views = new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: 1000 });
    const writer = new SessionWriter(store, views);
    // The decider sees a journal the policy did not (a disagreement between them): it refuses the give-up.
    const token: SessionEvent = {
      type: 'JournalEventRecorded',
      data: { runId: 'refused-run', seq: 1, event: 'token', payload: { text: 'x' }, createdAt: T0 + 1 },
    };
    const disagreeing = {
      write: ((sessionId, decide, options) =>
        writer.write(sessionId, (loaded) => decide({ ...loaded, state: evolve(loaded.state, token) }), options)) as SessionWriter['write'],
    };
    const refusals: [string, string, string][] = [];
    const supervisor = new RecoverySupervisor(pool, store, registry, views, disagreeing, {
      clock: () => clock,
      onRefused: (decision, error: DomainError, sessionId) => refusals.push([sessionId, decision.type, error.code]),
    });
    expect(await supervisor.sweep(T0 + 31 + 86_400)).toMatchObject({ gaveUp: 0, failed: 0 });
    expect(refusals).toEqual([['refused-1', 'JournalRecoveryAbandoned', 'MARKER_NOT_PENDING']]);
    expect(await typesOf('refused-1')).toEqual(['SessionStarted', 'UserMessageSubmitted', 'TurnInterrupted']);
  });
});

/**
 * The pool, except that after the first statement it answers (before the caller can send another one),
 * `between()` runs: a deterministic interleaving of whatever commits there with the caller's next read.
 */
function poolWithHookAfterFirstQuery(between: () => Promise<unknown>): { readonly pool: pg.Pool; readonly fired: () => boolean } {
  let fired = false;
  const hooked = new Proxy(pool, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver);
      return async (...args: unknown[]) => {
        const result = await (target.query as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (!fired) {
          fired = true;
          await between();
        }
        return result;
      };
    },
  });
  return { pool: hooked, fired: () => fired };
}

describe('a sweep racing the async index projector (defect D5)', () => {
  // The projector commits the index row (status pending) and the checkpoint past the submission in one
  // transaction. Landing right after the sweep's first read must not hide the session: a candidate search
  // in two READ COMMITTED statements (index, then unprojected tail) saw neither and missed it.
  const projector = () => new SessionIndexProjector(pool, store, new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: 1000 }));

  it('still finds a pending session whose index row and checkpoint commit between the reads', async () => {
    await given('d5-1', submitted('d5-run'));
    const hooked = poolWithHookAfterFirstQuery(async () => expect(await projector().catchUp()).toBeGreaterThan(0));
    expect(await findRecoveryCandidates(hooked.pool, store)).toEqual(['d5-1']);
    expect(hooked.fired()).toBe(true);
    // The projector did commit: the session is now found through the index alone, with an empty tail.
    const indexed = await pool.query(`SELECT status FROM session_index WHERE session_id = 'd5-1'`);
    expect(indexed.rows).toEqual([{ status: 'pending' }]);
    expect(await findRecoveryCandidates(pool, store)).toEqual(['d5-1']);
  });

  it('decides the turn in that single sweep', async () => {
    await given('d5-2', submitted('d5-run-2'));
    const hooked = poolWithHookAfterFirstQuery(() => projector().catchUp());
    const result = await replica({ pool: hooked.pool }).supervisor.sweep(T0 + 31);
    expect(hooked.fired()).toBe(true);
    expect(result).toMatchObject({ examined: 1, interrupted: 1 });
    expect(await typesOf('d5-2')).toEqual(['SessionStarted', 'UserMessageSubmitted', 'TurnInterrupted']);
  });
});

describe('a dead turn the agent store already holds', () => {
  const observed = (...rows: StateRow[]): SessionEvent => ({ type: 'StateRowsObserved', data: { rows, observedAt: T0 + 5 } });
  const answer: StateRow = { rowId: 2, role: 'assistant', content: 'Here it is.', timestamp: T0 + 2 };

  it.each([
    ['a workspace tag', 'heal-v1', '[Workspace::v1: /home/dev]\nWhere is my answer?'],
    ['a legacy workspace tag holding a Windows path', 'heal-legacy', '[Workspace: C:\\Users\\dev\\]\nWhere is my answer?'],
  ])('self-heals from the agent store when its prompt row carries %s', async (_tag, sessionId, content) => {
    await given(sessionId, submitted(`${sessionId}-run`), observed({ rowId: 1, role: 'user', content, timestamp: T0 + 1 }, answer));
    const { views, supervisor } = replica();
    expect(await supervisor.sweep(T0 + 31)).toMatchObject({ examined: 1, interrupted: 0, recoveredFromAgentStore: 1, failed: 0 });
    expect((await typesOf(sessionId)).at(-1)).toBe('TurnRecoveredFromAgentStore');
    const { view } = await views.view(sessionId);
    expect([view.pendingTurn, view.markers, view.display.map((row) => row.content)]).toEqual([null, [], [content, answer.content]]);
  });
});

describe('two replicas sweeping at once', () => {
  it('produce exactly one decision', async () => {
    const sessions = ['race-1', 'race-2', 'race-3'];
    for (const id of sessions) await given(id, submitted(`${id}-run`));
    const a = replica();
    const b = replica();
    // Both fold the sessions first, so both decide on the same versions.
    for (const id of sessions) await Promise.all([a.views.load(id), b.views.load(id)]);
    const [first, second] = await Promise.all([a.supervisor.sweep(T0 + 31), b.supervisor.sweep(T0 + 31)]);
    expect(first.interrupted + second.interrupted).toBe(sessions.length);
    expect(first.failed + second.failed).toBe(0);
    for (const id of sessions) {
      expect(await typesOf(id)).toEqual(['SessionStarted', 'UserMessageSubmitted', 'TurnInterrupted']);
    }
  });
});

describe('a failed append', () => {
  it('changes nothing, and the next sweep decides', async () => {
    await given('fail-1', submitted('fail-run'));
    const broken: EventStore = Object.assign(Object.create(store) as EventStore, {
      append: async () => {
        throw new Error('connection reset');
      },
    });
    const failing = replica({ store: broken });
    expect(await failing.supervisor.sweep(T0 + 31)).toEqual({
      examined: 1,
      interrupted: 0,
      recoveredFromAgentStore: 0,
      gaveUp: 0,
      failed: 1,
    });
    expect(await typesOf('fail-1')).toEqual(['SessionStarted', 'UserMessageSubmitted']);
    expect((await failing.views.view('fail-1')).view.pendingTurn).toMatchObject({ runId: 'fail-run' });
    expect(await replica().supervisor.sweep(T0 + 31)).toMatchObject({ interrupted: 1, failed: 0 });
  });
});
