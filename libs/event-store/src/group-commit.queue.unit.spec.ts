import { type BatchOutcome, GroupCommitQueue } from './group-commit.queue.js';

/** A commit whose batches the test settles by hand, in order. */
function manualCommit() {
  const calls: { items: readonly number[]; settle: (outcomes: BatchOutcome<number> | Error) => void }[] = [];
  const commit = (items: readonly number[]) =>
    new Promise<BatchOutcome<number>>((resolve, reject) => {
      calls.push({ items, settle: (outcomes) => (outcomes instanceof Error ? reject(outcomes) : resolve(outcomes)) });
    });
  return { calls, commit };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommitQueue', () => {
  it('sends the first item of an idle queue at once and the items that arrive meanwhile together, bounded by count and bytes', async () => {
    const { calls, commit } = manualCommit();
    const queue = new GroupCommitQueue<number, number>(commit, { maxItems: 3, maxBytes: 100, maxInFlight: 1 });
    const results = [queue.submit(1, 10)];
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    results.push(queue.submit(2, 10), queue.submit(3, 10), queue.submit(4, 10), queue.submit(5, 95));
    const all = Promise.allSettled(results);
    calls[0].settle([{ ok: true, value: 10 }]);
    await flush();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    calls[1].settle([{ ok: true, value: 20 }, { ok: false, error: new Error('three') }, { ok: true, value: 40 }]);
    await flush();
    // An item over the byte bound still goes, alone.
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4], [5]]);
    calls[2].settle(new Error('lost'));
    const settled = await all;
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([10, 20, 'three', 40, 'lost']);
  });

  it('sends the next batch before it settles the appends of the one that committed', async () => {
    const { calls, commit } = manualCommit();
    const queue = new GroupCommitQueue<number, number>(commit, { maxItems: 10, maxBytes: 100, maxInFlight: 1 });
    const order: string[] = [];
    const first = queue.submit(1, 1).then(() => order.push(`settled 1 after ${calls.length} batches sent`));
    void queue.submit(2, 1);
    calls[0].settle([{ ok: true, value: 1 }]);
    await first;
    expect(order).toEqual(['settled 1 after 2 batches sent']);
    calls[1].settle([{ ok: true, value: 2 }]);
  });

  it('rejects an append the batch gave no outcome for', async () => {
    const { calls, commit } = manualCommit();
    const queue = new GroupCommitQueue<number, number>(commit, { maxItems: 10, maxBytes: 100, maxInFlight: 1 });
    const result = queue.submit(1, 1);
    calls[0].settle([]);
    await expect(result).rejects.toThrow('no outcome');
  });

  it('goes on when the batch-size callback throws', async () => {
    const { calls, commit } = manualCommit();
    const queue = new GroupCommitQueue<number, number>(commit, { maxItems: 10, maxBytes: 100, maxInFlight: 1 }, () => {
      throw new Error('metrics broke');
    });
    const first = queue.submit(1, 1);
    const second = queue.submit(2, 1);
    calls[0].settle([{ ok: true, value: 1 }]);
    await expect(first).resolves.toBe(1);
    calls[1].settle([{ ok: true, value: 2 }]);
    await expect(second).resolves.toBe(2);
  });

  describe('with a linger', () => {
    const ok = (items: readonly number[]): BatchOutcome<number> => items.map((value) => ({ ok: true, value }));

    it('never holds a lone writer back: its batches are of one, so each goes at once', async () => {
      const { calls, commit } = manualCommit();
      const queue = new GroupCommitQueue<number, number>(commit, { maxItems: 10, maxBytes: 100, maxInFlight: 1, lingerMs: 60_000 });
      for (let i = 1; i <= 3; i += 1) {
        const result = queue.submit(i, 1);
        expect(calls).toHaveLength(i);
        calls[i - 1].settle(ok(calls[i - 1].items));
        await expect(result).resolves.toBe(i);
      }
    });

    it('waits until as many appends wait as were outstanding at once lately, and sends them the moment they do', async () => {
      const { calls, commit } = manualCommit();
      const queue = new GroupCommitQueue<number, number>(commit, { maxItems: 10, maxBytes: 100, maxInFlight: 1, lingerMs: 60_000 });
      const first = queue.submit(1, 1);
      void queue.submit(2, 1);
      void queue.submit(3, 1);
      calls[0].settle(ok(calls[0].items));
      await expect(first).resolves.toBe(1);
      // Three were outstanding at once: two waiting do not go yet; the third makes the batch.
      expect(calls).toHaveLength(1);
      void queue.submit(4, 1);
      expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
      calls[1].settle(ok(calls[1].items));
    });

    it('sends what waits when the linger runs out, and a batch over the byte bound at once', async () => {
      const { calls, commit } = manualCommit();
      const queue = new GroupCommitQueue<number, number>(commit, { maxItems: 10, maxBytes: 100, maxInFlight: 1, lingerMs: 200 });
      void queue.submit(1, 1);
      const late = [queue.submit(2, 1), queue.submit(3, 1)];
      calls[0].settle(ok(calls[0].items));
      await flush();
      expect(calls).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(calls.map((c) => c.items)).toEqual([[1], [2, 3]]);
      calls[1].settle(ok(calls[1].items));
      await expect(Promise.all(late)).resolves.toEqual([2, 3]);
      // Three were outstanding lately: one item of 100 bytes (the bound) still goes at once.
      void queue.submit(4, 100);
      expect(calls.map((c) => c.items)).toEqual([[1], [2, 3], [4]]);
      calls[2].settle(ok(calls[2].items));
    });
  });
});
