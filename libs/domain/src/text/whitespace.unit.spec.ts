import fc from 'fast-check';
import { isBlank, ws } from './whitespace.js';

/**
 * ws() is the reference's "split on whitespace runs, join with one space"; it is computed with a scan and
 * replace+trim instead (no word array), and isBlank(x) stands for ws(x) === ''. Both must agree with the
 * definition on every string, including every kind of blank JavaScript's \s and trim() know.
 */
const byDefinition = (text: string): string =>
  text
    .split(/\s+/u)
    .filter((word) => word !== '')
    .join(' ');

const BLANKS = [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
const NOT_BLANK = ['a', 'B', '7', '\u180e', '\u200b', '\ud83d', '\ude00', '\ud83d\ude00', '.', 'é'];
const textArb = fc.array(fc.constantFrom(...BLANKS, ...NOT_BLANK), { maxLength: 24 }).map((parts) => parts.join(''));

describe('ws and isBlank', () => {
  it('match the split-and-join definition on any mix of blanks and text', () => {
    fc.assert(
      fc.property(fc.oneof(textArb, fc.string(), fc.string({ unit: 'binary' })), (text) => {
        expect(ws(text)).toBe(byDefinition(text));
        expect(isBlank(text)).toBe(byDefinition(text) === '');
      }),
      { numRuns: 3000, seed: 5 },
    );
  });

  it('match it on every UTF-16 unit, doubled between words and at both ends', () => {
    for (let unit = 0; unit <= 0xffff; unit += 1) {
      const c = String.fromCharCode(unit);
      const text = `${c}a${c}${c}b${c}`;
      if (ws(text) !== byDefinition(text) || isBlank(c) !== (byDefinition(c) === '')) throw new Error(`differs at U+${unit.toString(16)}`);
    }
  });

  it('returns already-normal text as it is, and reads non-strings as the definition does', () => {
    const normal = 'one two three';
    expect(ws(normal)).toBe(normal);
    expect(ws(null)).toBe('');
    expect(ws(undefined)).toBe('');
    expect(ws(42)).toBe('42');
    expect(isBlank(null)).toBe(true);
    expect(isBlank(0)).toBe(false);
  });
});
