import { chainHash, InMemoryEventStore } from '#event-store';
import { verifyChains } from './import-chain.verifier.js';
import type { ImportEvent } from './ndjson.reader.js';
import { parseEventLine } from './ndjson.reader.js';

function chainOf(streamId: string, count: number, from = 1, previous = ''): ImportEvent[] {
  const events: ImportEvent[] = [];
  for (let version = from; version < from + count; version++) {
    const data = { n: version };
    previous = chainHash(previous, version, 'Noted', data);
    events.push({ line: events.length + 1, bytes: 10, streamId, version, type: 'Noted', data, metadata: {}, hash: previous });
  }
  return events;
}

async function* iterate(events: ImportEvent[]) {
  yield* events;
}

describe('verifyChains', () => {
  it('accepts intact chains and plans to append only what the store lacks', async () => {
    const store = new InMemoryEventStore();
    const a = chainOf('a', 5);
    await store.append('a', a.slice(0, 2).map(({ type, data }) => ({ type, data })));
    const result = await verifyChains(store, iterate([...a, ...chainOf('b', 3)]));
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ events: 8, toAppend: 6 });
    expect(result.plans.get('a')).toMatchObject({ storedVersion: 2, lastVersion: 5 });
  });

  it('names the stream and the first version whose hash does not follow', async () => {
    const events = chainOf('s', 4);
    events[2] = { ...events[2], data: { n: 99 } };
    const result = await verifyChains(new InMemoryEventStore(), iterate(events));
    expect(result.problems).toEqual([expect.stringMatching(/^stream s version 3: hash does not follow the chain \(line 3: recomputed [0-9a-f]{64}, file has /)]);
  });

  it('refuses gaps, continuations past the stored head, and events that differ from the stored ones', async () => {
    const store = new InMemoryEventStore();
    await store.append('c', [{ type: 'Noted', data: { other: true } }]);
    const gap = chainOf('g', 4).filter((e) => e.version !== 2);
    const continuation = chainOf('late', 2, 4);
    const result = await verifyChains(store, iterate([...gap, ...continuation, ...chainOf('c', 2)]));
    expect(result.problems).toEqual([
      'stream g version 3: expected version 2 (versions of a stream must be consecutive, line 3)',
      'stream late version 4: the file continues the stream from version 4 but the database holds only 0 event(s) of it (line 1)',
      expect.stringMatching(/^stream c version 1: conflicts with the stored event/),
    ]);
  });
});

describe('parseEventLine', () => {
  it('checks every field and that sessionId matches the stream', () => {
    const ok = { sessionId: 'x', streamId: 'session-x', version: 1, type: 'T', data: {}, metadata: {}, hash: 'a'.repeat(64) };
    expect(parseEventLine(JSON.stringify(ok), 1)).toMatchObject({ streamId: 'session-x', version: 1 });
    expect(() => parseEventLine('{', 7)).toThrow(/^line 7: not JSON/);
    expect(() => parseEventLine(JSON.stringify({ ...ok, version: 0 }), 2)).toThrow('line 2: version must be a positive integer');
    expect(() => parseEventLine(JSON.stringify({ ...ok, hash: 'zz' }), 3)).toThrow('line 3: hash must be 64 hex digits');
    expect(() => parseEventLine(JSON.stringify({ ...ok, sessionId: 'y' }), 4)).toThrow('line 4: sessionId "y" does not match streamId session-x');
  });
});
