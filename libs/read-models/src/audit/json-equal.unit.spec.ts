import { deepDiff } from './deep-diff.js';
import { jsonEqual } from './json-equal.js';

const cases: [string, unknown, unknown][] = [
  ['key order', { a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }],
  ['an undefined property', { a: 1 }, { a: 1, b: undefined }],
  ['-0 and 0', { a: -0 }, { a: 0 }],
  ['an undefined array item and null', [undefined], [null]],
  ['a changed leaf', { a: { b: 'x' } }, { a: { b: 'y' } }],
  ['a missing key', { a: 1, b: 2 }, { a: 1 }],
  ['an extra key', { a: 1 }, { a: 1, c: 3 }],
  ['arrays of other lengths', [1, 2], [1]],
  ['an array and an object', [], {}],
  ['null and an object', null, {}],
];

describe('jsonEqual', () => {
  it.each(cases)('agrees with deepDiff on %s', (_, a, b) => {
    expect(jsonEqual(a, b)).toBe(deepDiff(a, b).length === 0);
    expect(jsonEqual(b, a)).toBe(deepDiff(b, a).length === 0);
  });
});
