import { type SessionCommand, toSessionStreamId } from '#domain';
import { ConcurrencyError, type EventStore } from '#event-store';
import { SessionViews, SnapshotStore } from '#read-models';
import { useTestDatabase } from '../../../test/support/database.js';
import { executeSessionCommand } from './session-command.js';
import { MAX_WRITE_ATTEMPTS, SessionWriter, WriteContentionError } from './session-writer.js';

const db = useTestDatabase();
const T0 = 1_800_000_000;

/** Counts the store's head reads (the round trip the writer skips when it holds the session's state). */
function counting(store: EventStore): { store: EventStore; heads: () => number } {
  let heads = 0;
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'head') {
        return (streamId: string) => {
          heads += 1;
          return target.head(streamId);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: proxy, heads: () => heads };
}

/** One replica: its own caches over the shared database. */
function replica(store: EventStore) {
  const views = new SessionViews(store, new SnapshotStore(db.pool), { snapshotEvery: 1000, idleSnapshotMs: 0 });
  const writer = new SessionWriter(store, views);
  const run = (sessionId: string, command: SessionCommand, options: { expectedVersion?: number } = {}) =>
    executeSessionCommand(writer, sessionId, command, options);
  return { views, run };
}

const start = (sessionId: string): SessionCommand => ({ type: 'StartSession', data: { sessionId, title: sessionId, createdAt: T0 } });
const rows = (n: number): SessionCommand => ({
  type: 'RecordMessages',
  data: { rows: [{ role: 'user', content: `message ${n}`, timestamp: T0 + n }] },
});
const token = (seq: number): SessionCommand => ({
  type: 'RecordJournalEvents',
  data: { runId: 'run-1', events: [{ seq, event: 'token', payload: { text: `t${seq} ` }, createdAt: T0 + seq }] },
});

describe('the session writer', () => {
  it('writes from the state it holds without reading the stream head', async () => {
    const { store, heads } = counting(db.store);
    const a = replica(store);
    await a.run('own-1', start('own-1'));
    const before = heads();
    for (let n = 1; n <= 5; n += 1) await a.run('own-1', rows(n));
    expect(heads()).toBe(before);
    expect((await db.store.readStream(toSessionStreamId('own-1'))).length).toBe(6);
  });

  it('re-loads and re-decides when another replica moved the stream past its cache', async () => {
    const a = replica(db.store);
    const b = replica(db.store);
    await a.run('race-1', start('race-1'));
    await b.views.load('race-1');
    await a.run('race-1', rows(1));
    const result = await b.run('race-1', rows(2));
    expect(result).toMatchObject({ version: 3, appended: 1, duplicate: false });
    const types = (await db.store.readStream(toSessionStreamId('race-1'))).map((e) => e.type);
    expect(types).toEqual(['SessionStarted', 'MessagesRecorded', 'MessagesRecorded']);
  });

  it('takes a client precondition against the stream, not against a stale cache', async () => {
    const a = replica(db.store);
    const b = replica(db.store);
    await a.run('pre-1', start('pre-1'));
    await b.views.load('pre-1');
    await a.run('pre-1', rows(1));
    // b's cache says version 1; the stream is at 2, which is what the client expects.
    expect(await b.run('pre-1', rows(2), { expectedVersion: 2 })).toMatchObject({ version: 3, appended: 1 });
    await expect(b.run('pre-1', rows(3), { expectedVersion: 2 })).rejects.toMatchObject({ code: 'STREAM_VERSION_CONFLICT' });
  });

  it('answers a duplicate from a stale cache with the current version', async () => {
    const a = replica(db.store);
    const b = replica(db.store);
    await a.run('dup-1', start('dup-1'));
    await a.run('dup-1', token(1));
    await b.views.load('dup-1');
    await a.run('dup-1', rows(1));
    expect(await b.run('dup-1', token(1))).toEqual({ sessionId: 'dup-1', version: 3, appended: 0, duplicate: true });
  });

  it('refuses only on a fresh state: a session another replica started is found', async () => {
    const a = replica(db.store);
    const b = replica(db.store);
    await b.views.load('late-1');
    await a.run('late-1', start('late-1'));
    expect(await b.run('late-1', rows(1))).toMatchObject({ version: 2, appended: 1 });
    await expect(b.run('never-1', rows(1))).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('answers a repeated Idempotency-Key as a duplicate', async () => {
    const a = replica(db.store);
    await a.run('key-1', start('key-1'));
    const write = () => executeSessionCommand(new SessionWriter(db.store, a.views), 'key-1', rows(1), { idempotencyKey: 'k1' });
    expect(await write()).toMatchObject({ appended: 1, duplicate: false });
    expect(await write()).toMatchObject({ appended: 0, duplicate: true, version: 2 });
  });
});

describe('the session writer under writers that always win the race', () => {
  /** A store on which every append finds the stream moved (another writer got there first), however often it is re-decided. */
  function alwaysMoved(store: EventStore): { store: EventStore; appends: () => number } {
    let appends = 0;
    const proxy = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'append') {
          return async (streamId: string) => {
            appends += 1;
            const version = (await target.head(streamId))?.version ?? 0;
            throw new ConcurrencyError(streamId, version, version + 1);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { store: proxy, appends: () => appends };
  }

  it('gives up on a write without a precondition as contention (503, retry), never as a version conflict the client did not ask for', async () => {
    await replica(db.store).run('starved-1', start('starved-1'));
    const moved = alwaysMoved(db.store);
    const starved = replica(moved.store);
    const error = await starved.run('starved-1', rows(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteContentionError);
    expect(error).toMatchObject({ code: 'WRITE_CONTENTION', attempts: MAX_WRITE_ATTEMPTS });
    expect(moved.appends()).toBe(MAX_WRITE_ATTEMPTS);
    expect((await db.store.readStream(toSessionStreamId('starved-1'))).length).toBe(1);
  });

  it('still answers a conditional write that lost its race as the conflict it asked about', async () => {
    await replica(db.store).run('starved-2', start('starved-2'));
    const starved = replica(alwaysMoved(db.store).store);
    await expect(starved.run('starved-2', rows(1), { expectedVersion: 1 })).rejects.toBeInstanceOf(ConcurrencyError);
  });
});
