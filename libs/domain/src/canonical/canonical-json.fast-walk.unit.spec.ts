import fc from 'fast-check';
import { canonicalJson } from './canonical-json.js';

/** The fast walk and the careful one (taken past 256 levels) write the same bytes. */
function careful(value: unknown): string {
  // Nesting it 300 levels deep sends the whole value down the careful walk; the wrapper is then cut off.
  let wrapped: unknown = value;
  for (let i = 0; i < 300; i += 1) wrapped = [wrapped];
  const text = canonicalJson(wrapped);
  return text.slice(300, text.length - 300);
}

describe('canonicalJson, fast and careful', () => {
  it('writes the same text both ways for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed: unknown = JSON.parse(JSON.stringify(value));
        expect(canonicalJson(parsed)).toBe(careful(parsed));
      }),
      { numRuns: 500 },
    );
  });

  it('sorts the keys of small and large objects alike, in any order they were written', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { minLength: 0, maxLength: 60 }), fc.nat(), (keys, seed) => {
        const shuffled = [...keys].sort((a, b) => ((a.length * 31 + seed) % 7) - ((b.length * 31 + seed) % 7));
        const value = Object.fromEntries(shuffled.map((key, index) => [key, index % 3 === 0 ? { [key]: index } : index]));
        expect(canonicalJson(value)).toBe(careful(value));
      }),
      { numRuns: 300 },
    );
  });

  it('writes a key too long to keep (100,000 characters) as any other, in its place', () => {
    const long = 'k'.repeat(100_000);
    expect(canonicalJson({ [long]: 1, a: 2 })).toBe(`{"a":2,"${long}":1}`);
    expect(canonicalJson({ [long]: 3 })).toBe(`{"${long}":3}`);
  });

  it('writes -0 as 0 and sorts keys by code unit', () => {
    expect(canonicalJson(JSON.parse('{"b":-0,"a":[1e21,"\\u2028"],"B":{}}'))).toBe('{"B":{},"a":[1e+21,"\u2028"],"b":0}');
  });

  it('writes own __proto__ and constructor keys as data on either walk, so the hash chain covers them (issue 27)', () => {
    const value = JSON.parse('{"z":1,"constructor":{"prototype":{"x":1}},"__proto__":{"polluted":true}}');
    const text = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"z":1}';
    expect([canonicalJson(value), careful(value)]).toEqual([text, text]);
  });

  it('refuses what JSON cannot carry on either walk', () => {
    expect(() => canonicalJson({ a: [1, Number.NaN] })).toThrow('non-finite number at $.a[1]');
  });
});
