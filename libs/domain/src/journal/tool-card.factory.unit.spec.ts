import { summariseToolArgs } from './tool-card.factory.js';

describe('recovered tool arguments', () => {
  it('keep the first 4 keys, strings as-is and other values as canonical JSON', () => {
    const args = { path: 'a.txt', limit: 42, opts: { z: 1, a: [true, null] }, none: null, fifth: 'dropped' };
    expect(summariseToolArgs(args)).toEqual({
      path: 'a.txt',
      limit: '42',
      opts: '{"a":[true,null],"z":1}',
      none: 'null',
    });
  });

  it('cut each value to 120 characters followed by ...', () => {
    const exact = 'x'.repeat(120);
    expect(summariseToolArgs({ long: `${'y'.repeat(120)}tail`, exact, emoji: '\u{1F600}'.repeat(121) })).toEqual({
      long: `${'y'.repeat(120)}...`,
      exact,
      emoji: `${'\u{1F600}'.repeat(120)}...`,
    });
  });

  it('are empty when the event carries no object', () => {
    expect([summariseToolArgs(undefined), summariseToolArgs(['a']), summariseToolArgs('cmd')]).toEqual([{}, {}, {}]);
  });

  it('keep the keys in the order the worker wrote them', () => {
    expect(Object.keys(summariseToolArgs({ zeta: 1, alpha: 2, mid: 3, beta: 4, omega: 5 }))).toEqual([
      'zeta',
      'alpha',
      'mid',
      'beta',
    ]);
  });

  it('render booleans, arrays and empty strings without quoting strings', () => {
    expect(summariseToolArgs({ dry: false, files: ['a', 'b'], empty: '', quoted: '"x"' })).toEqual({
      dry: 'false',
      files: '["a","b"]',
      empty: '',
      quoted: '"x"',
    });
  });

  it('cut a canonical JSON value like any other text', () => {
    const long = { list: Array.from({ length: 60 }, (_, index) => index) };
    expect(summariseToolArgs(long)).toEqual({
      list:
        '[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,...',
    });
  });
});
