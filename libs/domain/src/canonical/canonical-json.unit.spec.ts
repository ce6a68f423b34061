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
