import { CanonicalJsonError, canonicalJson } from './canonical-json.js';
import { hashOf, sha256Hex } from './hash.js';

describe('canonical JSON', () => {
  it('sorts object keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
  });

  it('keeps array order', () => {
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
  });

  it('drops undefined properties', () => {
    expect(canonicalJson({ a: undefined, b: { c: undefined, d: 1 } })).toBe('{"b":{"d":1}}');
  });

  it('prints numbers as JSON.stringify does and -0 as 0', () => {
    expect(canonicalJson([1.5, 1e21, 1e-7, 100, -0, 0])).toBe('[1.5,1e+21,1e-7,100,0,0]');
  });

  it('escapes strings as JSON does', () => {
    expect(canonicalJson({ 'k"ey': 'line\nbreak \u2014 "q"' })).toBe('{"k\\"ey":"line\\nbreak \u2014 \\"q\\""}');
  });

  it.each([NaN, Infinity, -Infinity])('rejects the non-finite number %p with its path', (value) => {
    expect(() => canonicalJson({ a: [1, { b: value }] })).toThrow(new CanonicalJsonError('non-finite number at $.a[1].b'));
  });

  it('rejects values JSON cannot carry', () => {
    expect(() => canonicalJson(undefined)).toThrow(CanonicalJsonError);
    expect(() => canonicalJson([undefined])).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(CanonicalJsonError);
    expect(() => canonicalJson(BigInt(1))).toThrow(CanonicalJsonError);
  });

  it('gives equal values with different key order the same bytes', () => {
    expect(canonicalJson({ x: 1, y: [true, 'a'] })).toBe(canonicalJson({ y: [true, 'a'], x: 1 }));
  });
});

describe('hashes', () => {
  it('are lower-case hex sha256 of the UTF-8 bytes', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hash the canonical JSON of a value', () => {
    expect(hashOf({ b: 1, a: [1, 2] })).toBe('94a786c3662bc7beeb598efa7d8cb58d7bea25d6c275ea9785a0230ff1f8c2ba');
    expect(hashOf({ toolCards: [], messages: [] })).toBe(
      '7e86638816e5902ab5c874c275c080d0d1d68b2788c82e5879f785d68f49b2ec',
    );
  });
});

describe('canonical JSON of deeply nested values (issue 12, defect 3)', () => {
  const nested = (depth: number, wrap: (inner: unknown) => unknown) => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i += 1) value = wrap(value);
    return value;
  };

  it('writes 10,000 levels of objects and of arrays without exhausting the stack', () => {
    expect(canonicalJson(nested(10_000, (a) => ({ a })))).toBe(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`);
    expect(canonicalJson(nested(10_000, (a) => [a]))).toBe(`${'['.repeat(10_000)}1${']'.repeat(10_000)}`);
  });

  it('writes 100,000 levels of mixed objects and arrays, keys sorted at each', () => {
    const value = nested(100_000, (inner) => ({ z: [inner, null], a: true }));
    const text = canonicalJson(value);
    expect(text.startsWith('{"a":true,"z":[{"a":true,"z":[')).toBe(true);
    expect(text.length).toBe(100_000 * '{"a":true,"z":[,null]}'.length + 1);
  });

  it('names the path of a bad value deep inside', () => {
    expect(() => canonicalJson({ a: [0, { b: [{ c: NaN }] }] })).toThrow(new CanonicalJsonError('non-finite number at $.a[1].b[0].c'));
  });

  it('refuses a cycle instead of looping', () => {
    const looped: Record<string, unknown> = { a: 1 };
    looped.self = { back: looped };
    expect(() => canonicalJson(looped)).toThrow(new CanonicalJsonError('cycle at $.self.back'));
  });

  it('writes the same value twice in one document (shared, not cyclic)', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ b: shared, a: [shared, shared] })).toBe('{"a":[{"x":1},{"x":1}],"b":{"x":1}}');
  });
});
