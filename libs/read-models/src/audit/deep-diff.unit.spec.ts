import { deepDiff } from './deep-diff.js';

describe('deepDiff', () => {
  it('finds nothing between values JSON carries the same', () => {
    expect(deepDiff({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toEqual([]);
  });

  it('treats an undefined property as absent, as JSON does', () => {
    expect(deepDiff({ a: 1 }, { a: 1, b: undefined })).toEqual([]);
  });

  it('treats -0 as 0 and an undefined array item as null', () => {
    expect(deepDiff([0, null], [-0, undefined])).toEqual([]);
  });

  it('names a changed leaf by its JSON path', () => {
    const stored = { display: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'tampered' }] };
    const replayed = { display: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] };
    expect(deepDiff(stored, replayed, { path: 'view' })).toEqual([
      { path: 'view.display[1].content', stored: 'tampered', replayed: 'hello' },
    ]);
  });

  it('reads own keys only: a __proto__ or constructor key one side lacks is a difference (issue 27)', () => {
    const stored = JSON.parse('{"meta":{"__proto__":{},"constructor":{"prototype":{}}}}');
    expect(deepDiff(stored, { meta: {} })).toEqual([
      { path: 'meta.__proto__', stored: {}, replayed: undefined },
      { path: 'meta.constructor', stored: { prototype: {} }, replayed: undefined },
    ]);
  });

  it('quotes keys that are not identifiers', () => {
    expect(deepDiff({ runs: { 'run:r1': 1 } }, { runs: { 'run:r1': 2 } })).toEqual([
      { path: 'runs["run:r1"]', stored: 1, replayed: 2 },
    ]);
  });

  it('reports a missing side as undefined', () => {
    expect(deepDiff({ rows: [1] }, { rows: [1, 2], extra: true })).toEqual([
      { path: 'extra', stored: undefined, replayed: true },
      { path: 'rows[1]', stored: undefined, replayed: 2 },
    ]);
  });

  it('reports a change of kind once, at the node', () => {
    expect(deepDiff({ a: [1, 2] }, { a: { 0: 1 } })).toEqual([{ path: 'a', stored: [1, 2], replayed: { 0: 1 } }]);
  });

  it('calls the root $ when no path is given', () => {
    expect(deepDiff(1, 2)).toEqual([{ path: '$', stored: 1, replayed: 2 }]);
  });

  it('stops at the limit', () => {
    const stored = Array.from({ length: 120 }, (_, i) => i);
    const replayed = Array.from({ length: 120 }, (_, i) => i + 1);
    expect(deepDiff(stored, replayed)).toHaveLength(50);
    expect(deepDiff(stored, replayed, { limit: 3 }).map((d) => d.path)).toEqual(['[0]', '[1]', '[2]']);
    expect(deepDiff(stored, replayed, { limit: 0 })).toEqual([]);
  });
});
