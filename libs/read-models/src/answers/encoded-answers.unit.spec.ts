import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ByteBoundedCache } from './byte-bounded.cache.js';
import { chooseCoding, EncodedAnswers } from './encoded-answers.js';

describe('a byte-bounded cache', () => {
  it('evicts the least recently used entries once their bytes pass the budget', () => {
    const sizes: number[] = [];
    const cache = new ByteBoundedCache<string, string>(100, (bytes) => sizes.push(bytes));
    cache.set('a', 'A', 40);
    cache.set('b', 'B', 40);
    cache.get('a');
    cache.set('c', 'C', 40);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['A', undefined, 'C']);
    expect(cache.bytes).toBe(80);
    expect(sizes).toEqual([40, 80, 80]);
  });

  it('keeps nothing larger than the whole budget', () => {
    const cache = new ByteBoundedCache<string, string>(10);
    cache.set('big', 'x', 11);
    expect(cache.get('big')).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });

  it('tells of each entry dropped for room, or not kept for want of it, and of no other', () => {
    const dropped: string[] = [];
    const sizes: number[] = [];
    const cache = new ByteBoundedCache<string, string>(100, (bytes) => sizes.push(bytes), (key) => dropped.push(key));
    cache.set('a', 'A', 40);
    cache.set('b', 'B', 40);
    cache.set('a', 'A2', 50); // replaced: no drop; b is now the oldest
    cache.set('c', 'C', 30); // 120 > 100: b goes
    cache.delete('c');
    cache.set('a', 'A3', 101); // grown past the whole budget: not kept, and its old bytes are gone
    expect(dropped).toEqual(['b', 'a']);
    expect(cache.bytes).toBe(0);
    expect(sizes.at(-1)).toBe(0);
    cache.set('d', 'D', 10);
    cache.clear();
    expect(dropped).toEqual(['b', 'a']);
    // With no budget at all nothing is kept, and nothing is said to be dropped.
    const none: string[] = [];
    new ByteBoundedCache<string, string>(0, undefined, (key) => none.push(key)).set('x', 'X', 1);
    expect(none).toEqual([]);
  });
});

describe('choosing a content coding', () => {
  it.each([
    [undefined, 'identity'],
    ['gzip, deflate', 'gzip'],
    ['gzip, br', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['*', 'br'],
    ['identity', 'identity'],
    ['gzip;q=0', 'identity'],
  ])('answers %s with %s', (header, coding) => {
    expect(chooseCoding(header, 10_000)).toBe(coding);
  });

  it('does not compress small answers', () => {
    expect(chooseCoding('br', 100)).toBe('identity');
  });
});

describe('encoded answers', () => {
  it('serialises once and compresses once per coding, counting every form', () => {
    const answers = new EncodedAnswers(1_000_000);
    let builds = 0;
    const body = { messages: Array.from({ length: 100 }, (_, i) => ({ role: 'user', content: `message ${i}` })) };
    const build = () => ((builds += 1), { etag: '"t"', body });
    const first = answers.get('k', build);
    expect(answers.get('k', build)).toBe(first);
    expect(builds).toBe(1);
    const br = answers.encode('k', first, 'br');
    const gz = answers.encode('k', answers.get('k', build), 'gzip');
    expect(JSON.parse(brotliDecompressSync(br).toString())).toEqual(body);
    expect(JSON.parse(gunzipSync(gz).toString())).toEqual(body);
    expect(answers.encode('k', answers.get('k', build), 'br')).toBe(br);
    expect(answers.bytes).toBe(first.identity.length + br.length + gz.length);
  });
});
