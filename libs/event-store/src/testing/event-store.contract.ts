import { pollUntil } from '../../../../test/support/poll.js';
import { chainHash } from '../event-hash.js';
import {
  type AppendedStream,
  comparePositions,
  ConcurrencyError,
  type EventStore,
  IdempotencyKeyTaken,
  type InlineProjection,
  START,
  type StoredEvent,
} from '../event-store.js';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const ev = (n: number) => ({ type: 'Noted', data: { n, text: `event ${n}`, at: 1779344917.2780898 } });

/** An append's context for the `hold` projection: its transaction stays open until `hold` settles. */
interface HoldContext {
  readonly hold: () => Promise<void>;
}

/** Inline projections the contract installs: one that holds transactions open, one that records what it saw. */
function contractProjections(seen: AppendedStream[]): InlineProjection[] {
  return [
    {
      name: 'hold',
      async project(_tx, appended) {
        for (const append of appended) await (append.context as HoldContext | undefined)?.hold?.();
      },
    },
    {
      name: 'record',
      async project(_tx, appended) {
        seen.push(...appended);
      },
    },
  ];
}

/** What a store under contract gives the suite: the store, built with the suite's inline projections, and a fault. */
export interface ContractHarness {
  readonly store: EventStore;
  /** Breaks the store's connections that are inside a transaction now (the database going away mid-batch). */
  sever(): Promise<void>;
}

/**
 * ONE contract suite, run unchanged against every store (in memory, test PostgreSQL, embedded PostgreSQL).
 * `open` returns a fresh store with the given inline projections; stream ids are unique per test so stores
 * may be shared.
 */
export function eventStoreContract(
  name: string,
  open: (inline: readonly InlineProjection[]) => Promise<ContractHarness>,
  options: { readonly hookProjections?: boolean } = {},
): void {
  // A store that runs no hook projection (Citus: the append runs on a worker, as a function) skips the cases that
  // hold a transaction open through one; the Citus tier holds them open on a worker instead (test/citus).
  const withHooks = options.hookProjections === false ? it.skip : it;
  describe(`event store contract: ${name}`, () => {
    let store: EventStore;
    let harness: ContractHarness;
    const seen: AppendedStream[] = [];
    let seq = 0;
    const streamId = (label: string) => `${label}-${process.pid}-${Date.now()}-${++seq}`;
    const mine = (events: readonly StoredEvent[], ids: string[]) => events.filter((e) => ids.includes(e.streamId));
    const holding = (hold: () => Promise<void>): { context: HoldContext } => ({ context: { hold } });

    beforeAll(async () => {
      harness = await open(options.hookProjections === false ? [] : contractProjections(seen));
      store = harness.store;
    });
    afterAll(async () => {
      await store.close();
    });

    it('appends a batch at the expected version and reads it back in order', async () => {
      const id = streamId('s');
      const result = await store.append(id, [ev(1), ev(2), ev(3)], { expectedVersion: 0 });
      expect(result.version).toBe(3);
      const events = await store.readStream(id);
      expect(events.map((e) => [e.version, e.type, e.data])).toEqual([
        [1, 'Noted', ev(1).data],
        [2, 'Noted', ev(2).data],
        [3, 'Noted', ev(3).data],
      ]);
      expect(await store.head(id)).toEqual({ version: 3, lastHash: result.lastHash, archived: false });
    });

    it('reads streams and the global log in numeric order past single digits', async () => {
      const id = streamId('numeric');
      for (let batch = 0; batch < 4; batch++) {
        await store.append(id, Array.from({ length: 30 }, (_, i) => ev(batch * 30 + i + 1)));
      }
      const versions = (await store.readStream(id)).map((e) => e.version);
      expect(versions).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
      expect((await store.readStream(id, { from: 9, to: 11 })).map((e) => e.version)).toEqual([9, 10, 11]);
      // The snapshot fence may briefly hide events behind another open transaction.
      const all = await pollUntil(
        'the 120 events in the global read',
        () => store.readAll({ after: START, limit: 1_000_000 }),
        (r) => mine(r.events, [id]).length === 120,
      );
      expect(mine(all.events, [id]).map((e) => e.version)).toEqual(versions);
      const positions = all.events.map((e) => BigInt(e.globalPosition));
      // Each origin's events come in that origin's (transaction id, position) order, origin after origin.
      const ordered = all.events.every(
        (e, i) => i === 0 || all.events[i - 1].origin !== e.origin || comparePositions(all.events[i - 1], e) < 0,
      );
      expect(ordered).toBe(true);
      expect(positions.length).toBeGreaterThanOrEqual(120);
    });

    it('reads a range of versions', async () => {
      const id = streamId('range');
      await store.append(id, [ev(1), ev(2), ev(3), ev(4)]);
      const events = await store.readStream(id, { from: 2, to: 3 });
      expect(events.map((e) => e.version)).toEqual([2, 3]);
    });

    it('reads what a fold needs (version, type, data, schema version) as readStream has it, for a range and for the whole stream', async () => {
      const id = streamId('data');
      await store.append(id, [ev(1), ev(2), { ...ev(3), metadata: { schema: 2 } }, ev(4)]);
      const full = await store.readStream(id);
      const asData = ({ version, type, data, metadata }: StoredEvent) => ({ version, type, data, schema: typeof metadata.schema === 'number' ? metadata.schema : null });
      expect(await store.readStreamData(id)).toEqual(full.map(asData));
      expect((await store.readStreamData(id)).map((e) => e.schema)).toEqual([null, null, 2, null]);
      expect(await store.readStreamData(id, { from: 2, to: 3 })).toEqual(full.slice(1, 3).map(asData));
      expect(await store.readStreamData(id, { from: 5 })).toEqual([]);
      expect(await store.readStreamData(streamId('data-none'))).toEqual([]);
    });

    it('refuses an append whose expected version moved and stores nothing', async () => {
      const id = streamId('conflict');
      await store.append(id, [ev(1)], { expectedVersion: 0 });
      await expect(store.append(id, [ev(2)], { expectedVersion: 0 })).rejects.toBeInstanceOf(ConcurrencyError);
      expect((await store.readStream(id)).map((e) => e.version)).toEqual([1]);
    });

    it('lets exactly one of two writers with the same expected version win', async () => {
      for (const existing of [0, 1]) {
        const id = streamId('race');
        if (existing) await store.append(id, [ev(0)]);
        const outcomes = await Promise.allSettled([
          store.append(id, [ev(1), ev(2)], { expectedVersion: existing }),
          store.append(id, [ev(3)], { expectedVersion: existing }),
        ]);
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost[0].reason).toBeInstanceOf(ConcurrencyError);
        const stored = await store.readStream(id);
        expect(stored.map((e) => e.version)).toEqual(stored.map((_, i) => i + 1));
      }
    });

    it('refuses a repeated idempotency key and stores nothing of that append', async () => {
      const id = streamId('idem');
      await store.append(id, [ev(1)], { idempotencyKeys: ['run:r1'] });
      await expect(store.append(id, [ev(2)], { idempotencyKeys: ['run:r2', 'run:r1'] })).rejects.toBeInstanceOf(
        IdempotencyKeyTaken,
      );
      expect((await store.readStream(id)).map((e) => e.version)).toEqual([1]);
      expect(await store.findIdempotencyKey(id, 'run:r1')).toBe(1);
      expect(await store.findIdempotencyKey(id, 'run:r2')).toBeNull();
    });

    it('chains event hashes the same way in every store', async () => {
      const id = streamId('chain');
      await store.append(id, [ev(1)]);
      const result = await store.append(id, [ev(2), ev(3)]);
      const [e1, e2, e3] = await store.readStream(id);
      expect(e1.hash).toBe(chainHash('', 1, 'Noted', ev(1).data));
      expect(e2.hash).toBe(chainHash(e1.hash, 2, 'Noted', ev(2).data));
      expect(e3.hash).toBe(chainHash(e2.hash, 3, 'Noted', ev(3).data));
      expect(result.lastHash).toBe(e3.hash);
    });

    it('chains the same hashes when every append states the version it expects (a head the store may know)', async () => {
      const id = streamId('chain-expected');
      await store.append(id, [ev(1)], { expectedVersion: 0 });
      await store.append(id, [ev(2), ev(3)], { expectedVersion: 1 });
      const result = await store.append(id, [ev(4)], { expectedVersion: 3 });
      await expect(store.append(id, [ev(5)], { expectedVersion: 3 })).rejects.toBeInstanceOf(ConcurrencyError);
      const events = await store.readStream(id);
      let previous = '';
      for (const event of events) {
        expect(event.hash).toBe(chainHash(previous, event.version, event.type, event.data));
        previous = event.hash;
      }
      expect(events.map((e) => e.version)).toEqual([1, 2, 3, 4]);
      expect(result).toMatchObject({ version: 4, lastHash: previous });
      expect(result.globalPositions).toHaveLength(1);
    });

    it('reads all streams in commit order, page by page, from a checkpoint', async () => {
      const a = streamId('all-a');
      const b = streamId('all-b');
      await store.append(a, [ev(1), ev(2)]);
      await store.append(b, [ev(3)]);
      await store.append(a, [ev(4)]);
      const collected: StoredEvent[] = [];
      let checkpoint = START;
      for (let page = 0; page < 10_000; page++) {
        const result = await store.readAll({ after: checkpoint, limit: 2 });
        if (result.events.length === 0) break;
        collected.push(...result.events);
        checkpoint = result.checkpoint;
      }
      const n = (events: readonly StoredEvent[]) => events.map((e) => (e.data as { n: number }).n);
      expect(n(mine(collected, [a]))).toEqual([1, 2, 4]);
      expect(n(mine(collected, [b]))).toEqual([3]);
      // Streams written by one node (one origin) come in commit order across streams; a cluster has no such order across nodes.
      const [first, second] = [mine(collected, [a])[0], mine(collected, [b])[0]];
      if (first.origin === second.origin) expect(n(mine(collected, [a, b]))).toEqual([1, 2, 3, 4]);
      const positions = await store.readPositions({ after: START, limit: 1_000_000 });
      const full = await store.readAll({ after: START, limit: 1_000_000 });
      expect(positions.positions.filter((p) => [a, b].includes(p.streamId))).toEqual(
        mine(full.events, [a, b]).map(({ streamId, version, origin, globalPosition, transactionId }) => ({ streamId, version, origin, globalPosition, transactionId })),
      );
      expect(await store.countPast(START, 1_000_000)).toBeGreaterThanOrEqual(4);
      // Another open transaction on the server (another test's) may hold the fence back for a moment.
      await pollUntil(
        'nothing past a read of the whole log',
        async () => store.countPast((await store.readAll({ after: START, limit: 1_000_000 })).checkpoint, 1_000_000),
        (count) => count === 0,
      );
    });

    withHooks('never skips an event whose transaction commits after a later one', async () => {
      const early = streamId('early');
      const late = streamId('late');
      const { checkpoint: before } = await store.readAll({ after: START, limit: 100_000 });
      const gate = deferred();
      const written = deferred();
      const held = store.append(
        early,
        [ev(1)],
        holding(() => {
          written.resolve();
          return gate.promise;
        }),
      );
      await written.promise;
      await store.append(late, [ev(2)]);

      const whileOpen = await store.readAll({ after: before, limit: 100_000 });
      expect(mine(whileOpen.events, [early, late])).toEqual([]);

      gate.resolve();
      await held;
      const after = await pollUntil(
        'both events after the held transaction committed',
        () => store.readAll({ after: whileOpen.checkpoint, limit: 100_000 }),
        (r) => mine(r.events, [early, late]).length === 2,
      );
      expect(mine(after.events, [early, late]).map((e) => e.streamId)).toEqual([early, late]);
    });

    withHooks('stores nothing when a held transaction is abandoned', async () => {
      const id = streamId('abandoned');
      const gate = deferred();
      const held = store.append(id, [ev(1)], holding(() => gate.promise));
      gate.reject(new Error('client went away'));
      await expect(held).rejects.toThrow('client went away');
      expect(await store.readStream(id)).toEqual([]);
      await store.append(id, [ev(2)], { expectedVersion: 0 });
      expect((await store.readStream(id)).map((e) => e.version)).toEqual([1]);
    });

    withHooks('hands each committed append to the inline projections with its context and version', async () => {
      const id = streamId('inline');
      const context = { marker: id };
      await store.append(id, [ev(1), ev(2)], { context });
      const entry = seen.find((a) => a.streamId === id);
      expect(entry).toMatchObject({ streamId: id, version: 2, context });
      expect(entry?.events.map((e) => e.data)).toEqual([ev(1).data, ev(2).data]);
    });

    it('commits concurrent writers to many streams when one of them conflicts', async () => {
      const ids = Array.from({ length: 12 }, (_, i) => streamId(`many-${i}`));
      await Promise.all(ids.map((id) => store.append(id, [ev(0)])));
      const outcomes = await Promise.allSettled(
        ids.map((id, i) => store.append(id, [ev(1), ev(2)], { expectedVersion: i === 5 ? 0 : 1 })),
      );
      outcomes.forEach((outcome, i) => {
        if (i === 5) expect(outcome.status === 'rejected' && outcome.reason).toBeInstanceOf(ConcurrencyError);
        else expect(outcome).toMatchObject({ status: 'fulfilled', value: { version: 3 } });
      });
      const stored = await Promise.all(ids.map((id) => store.readStream(id)));
      expect(stored.map((events) => events.length)).toEqual(ids.map((_, i) => (i === 5 ? 1 : 3)));
    });

    it('refuses the second of two concurrent appends with one idempotency key, and only that one', async () => {
      const id = streamId('dup-batch');
      const others = Array.from({ length: 6 }, (_, i) => streamId(`dup-other-${i}`));
      const outcomes = await Promise.allSettled([
        store.append(id, [ev(1)], { idempotencyKeys: ['run:r1'] }),
        ...others.map((other) => store.append(other, [ev(1)], { idempotencyKeys: ['run:r1'] })),
        store.append(id, [ev(2)], { idempotencyKeys: ['run:r1'] }),
      ]);
      const mineOutcomes = [outcomes[0], outcomes[outcomes.length - 1]];
      expect(mineOutcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = mineOutcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(refused?.reason).toBeInstanceOf(IdempotencyKeyTaken);
      expect(outcomes.slice(1, -1).every((o) => o.status === 'fulfilled')).toBe(true);
      expect(await store.readStream(id)).toHaveLength(1);
    });

    it('refuses an append with text PostgreSQL cannot store without failing the appends beside it', async () => {
      const bad = streamId('nul');
      const good = Array.from({ length: 4 }, (_, i) => streamId(`beside-${i}`));
      const outcomes = await Promise.allSettled([
        ...good.map((id) => store.append(id, [ev(1)])),
        store.append(bad, [{ type: 'Noted', data: { text: 'a\u0000b' } }]),
        store.append(bad, [{ type: 'Noted', data: { text: 'lone \ud800 surrogate' } }]),
      ]);
      expect(outcomes.slice(0, 4).every((o) => o.status === 'fulfilled')).toBe(true);
      expect(outcomes.slice(4).every((o) => o.status === 'rejected')).toBe(true);
      expect(await store.readStream(bad)).toEqual([]);
    });

    withHooks('acknowledges no write it lost when the connection breaks mid-batch: each append is whole or absent', async () => {
      const gate = deferred();
      const written = deferred();
      const held = streamId('severed');
      const ids = Array.from({ length: 8 }, (_, i) => streamId(`severed-${i}`));
      const first = store.append(
        held,
        [ev(1), ev(2)],
        holding(() => {
          written.resolve();
          return gate.promise;
        }),
      );
      const rest = ids.map((id) => store.append(id, [ev(1), ev(2), ev(3)]));
      await written.promise;
      await harness.sever();
      gate.resolve();
      const outcomes = await Promise.allSettled([first, ...rest]);
      expect(outcomes[0].status).toBe('rejected');
      const streams = [held, ...ids];
      const stored = await Promise.all(streams.map((id) => store.readStream(id)));
      outcomes.forEach((outcome, i) => {
        const count = stored[i].length;
        if (outcome.status === 'fulfilled') expect(count).toBe(i === 0 ? 2 : 3);
        else expect([0, i === 0 ? 2 : 3]).toContain(count);
      });
      const after = await store.append(streamId('after-sever'), [ev(1)], { expectedVersion: 0 });
      expect(after.version).toBe(1);
    });
  });
}
