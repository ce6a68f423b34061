import fc from 'fast-check';
import { canonicalJson } from '#domain';
import { parsedCanonicalJson } from './parsed-canonical-json.js';

describe('parsedCanonicalJson', () => {
  it('writes what canonicalJson writes for any value JSON.parse gives', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed: unknown = JSON.parse(JSON.stringify(value));
        expect(parsedCanonicalJson(parsed)).toBe(canonicalJson(parsed));
      }),
      { numRuns: 500 },
    );
  });

  it('writes -0 as 0 and sorts keys by code unit', () => {
    expect(parsedCanonicalJson(JSON.parse('{"b":-0,"a":[1e21,"\\u2028"],"B":{}}'))).toBe(canonicalJson({ b: -0, a: [1e21, '\u2028'], B: {} }));
  });

  it('hands a value nested past 256 levels to canonicalJson', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 300; i += 1) deep = [deep];
    expect(parsedCanonicalJson(deep)).toBe(canonicalJson(deep));
  });
});
