import { randomBytes } from 'node:crypto';
import type { StoredEvent } from '../event-store.js';
import { InMemoryEventStore } from '../in-memory-event-store.js';
import { MAX_RUN } from './content-seal.js';
import { sealEventStore } from './sealing-event-store.js';
import type { SessionKeyring } from './session-keyring.js';

/** One data key for every stream: the keyring's table is not what these tests are about. */
const dataKey = { id: 'key-1', key: randomBytes(32) };
const keyring = {
  keyFor: async () => dataKey,
  keyForWrite: async () => dataKey,
  keysFor: async (ids: readonly string[]) => new Map(ids.map((id) => [id, dataKey])),
  forget: () => undefined,
} as unknown as SessionKeyring;

const token = (seq: number) => ({ type: 'JournalEventRecorded', data: { runId: 'r1', seq, event: 'token', payload: { text: `t${seq}` } } });
const textOf = (event: StoredEvent) => (event.data as { payload: { text?: string } }).payload.text ?? '(erased)';

/** The in-memory store with its `readStream` calls counted in rows, and its log pages as a test arranges them. */
function countingStore(inner: InMemoryEventStore, page?: () => StoredEvent[]) {
  const counts = { rows: 0 };
  const store = new Proxy(inner, {
    get(target, property) {
      if (property === 'readStream') {
        return async (...args: Parameters<InMemoryEventStore['readStream']>) => {
          const events = await target.readStream(...args);
          counts.rows += events.length;
          return events;
        };
      }
      if (property === 'readAll' && page !== undefined) return async () => ({ events: page(), checkpoint: {}, more: false });
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store, counts };
}

describe('the sealing store reading runs', () => {
  it('opens a page of the log that holds a stream out of version order (two origins, interleaved)', async () => {
    const inner = new InMemoryEventStore();
    const writer = sealEventStore(inner, keyring);
    await writer.append('s', [token(1)]);
    await writer.append('s', [token(2), token(3)]);
    await writer.append('s', [token(4), token(5)]);
    await writer.append('s', [token(6), token(7)]);
    const stored = await inner.readStream('s');
    const at = (version: number) => stored[version - 1];
    // Origin A's page holds 2 and 3, origin B's 5 and 7 (6 past B's page): taken in turn, with a gap.
    const { store } = countingStore(inner, () => [at(2), at(5), at(3), at(7)]);
    const page = await sealEventStore(store, keyring).readAll({});
    expect(page.events.map((e) => [e.version, textOf(e)])).toEqual([[2, 't2'], [5, 't5'], [3, 't3'], [7, 't7']]);
  });

  it('reads a long run page by page reading at most one run beyond each page', async () => {
    const inner = new InMemoryEventStore();
    await sealEventStore(inner, keyring).append('s', Array.from({ length: 1_000 }, (_, i) => token(i + 1)));
    const { store, counts } = countingStore(inner);
    const reader = sealEventStore(store, keyring);
    for (const limit of [1, 37, 100]) {
      counts.rows = 0;
      const texts: string[] = [];
      for (let from = 1; from <= 1_000; from += limit) texts.push(...(await reader.readStream('s', { from, to: from + limit - 1 })).map(textOf));
      expect(texts).toEqual(Array.from({ length: 1_000 }, (_, i) => `t${i + 1}`));
      const pages = Math.ceil(1_000 / limit);
      expect(counts.rows).toBeLessThanOrEqual(1_000 + pages * 2 * (MAX_RUN - 1));
    }
  });
});
