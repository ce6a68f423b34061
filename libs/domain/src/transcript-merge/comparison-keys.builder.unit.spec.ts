import { contentKey, dedupKey, mergeKey, visibleKey } from './comparison-keys.builder.js';
import { looseText } from './fuzzy-text.match.js';
import { ws } from '../text/whitespace.js';
import { comparisonJson as canonicalJson } from '../canonical/comparison-json.js';
import { assistant, call, tool, user } from '../testing/merge-rows.fixture.js';

/** Reference §2.1: the normalisations and the four comparison keys. */
describe('when text is normalised', () => {
  it('ws() collapses every whitespace run to one space and trims', () => {
    expect([ws('  a \t\n b  '), ws('plain text'), ws(''), ws(null), ws('a\u00a0\u00a0b')]).toEqual(['a b', 'plain text', '', '', 'a b']);
  });

  it('the loose form keeps case-folded letter, digit and underscore tokens of any script', () => {
    expect(looseText('Ça marche — déjà 2 fois! snake_case, ÜBER.')).toBe('ça marche déjà 2 fois snake_case über');
  });

  it('canonical JSON sorts object keys at every depth', () => {
    expect(canonicalJson([{ b: 1, a: { d: 2, c: 3 } }])).toBe(canonicalJson([{ a: { c: 3, d: 2 }, b: 1 }]));
  });
});

describe('when comparison keys are built', () => {
  it('the merge key compares whole seconds and the dedup key the exact timestamp', () => {
    expect(mergeKey(user('x', 100.2))).toBe(mergeKey(user('x', 100.9)));
    expect(dedupKey(user('x', 100.2))).not.toBe(dedupKey(user('x', 100.9)));
    expect(mergeKey(user('x', -0.5))).toBe(mergeKey(user('x', 0.5)));
  });

  it('the merge and dedup keys use the stable id when there is one, whatever the content', () => {
    expect(mergeKey(user('one', 1, { id: 'm' }))).toBe(mergeKey(user('two', 2, { id: 'm' })));
    expect(dedupKey(user('one', 1, { id: 'm' }))).toBe(dedupKey(assistant('two', 2, { id: 'm' })));
  });

  it('the merge and dedup keys keep raw content: whitespace and the workspace prefix count', () => {
    expect(mergeKey(user('a  b', 1))).not.toBe(mergeKey(user('a b', 1)));
    expect(dedupKey(user('[Workspace: /w] a', 1))).not.toBe(dedupKey(user('a', 1)));
  });

  it('the content key includes tool_call_id and tool name but not tool calls; the visible key the reverse', () => {
    const a = tool('out', 1, { toolCallId: 'c-1' });
    const b = tool('out', 2, { toolCallId: 'c-2' });

    expect([contentKey(a, 'sidecar') === contentKey(b, 'sidecar'), visibleKey(a, 'sidecar') === visibleKey(b, 'sidecar')]).toEqual([false, true]);
    const c = assistant('', 1, { toolCalls: [call('c-1')] });
    const d = assistant('', 1, { toolCalls: [call('c-2')] });
    expect([contentKey(c, 'sidecar') === contentKey(d, 'sidecar'), visibleKey(c, 'sidecar') === visibleKey(d, 'sidecar')]).toEqual([true, false]);
  });

  it('+api makes rows with different provider bytes, or with and without them, different under every key', () => {
    const plain = user('x', 1);
    const withA = user('x', 1, { apiContent: 'A' });
    const withB = user('x', 1, { apiContent: 'B' });
    const keys = [mergeKey, dedupKey, (r: typeof plain) => contentKey(r, 'state'), (r: typeof plain) => visibleKey(r, 'state')];

    for (const key of keys) expect(new Set([key(plain), key(withA), key(withB)]).size).toBe(3);
  });

  it('keys list content by its canonical JSON, and an empty list like no content', () => {
    const parts = [{ type: 'text', text: 'hi' }];

    expect(visibleKey({ role: 'user', content: parts }, 'sidecar')).toBe(visibleKey(user(canonicalJson(parts)), 'sidecar'));
    expect(mergeKey({ role: 'user', content: [] })).toBe(mergeKey({ role: 'user', content: null }));
  });
});
