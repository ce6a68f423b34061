import { isCompactionMarker, reconcileContext } from './context.reconcile.js';
import { assistant, inWorkspace, transcript, user } from '../testing/merge-rows.fixture.js';

/** Reference §2.6, the prefer_context path: the model context plus the agent rows after it. */
const card = user('[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were summarised below.', 100);
const compacted = [card, assistant('latest answer', 201)];
const state = [
  user('compacted prompt', 150),
  assistant('latest answer', 201),
  user('next question', 300),
  assistant('next answer', 301),
];
const anchor = { role: 'assistant', text: 'latest answer', timestamp: 201.0000004, attachmentCount: 0 };

describe('when the context is reconciled with the agent store', () => {
  it('appends the agent rows after an aligned context, keeping their stored content', () => {
    const local = [user('q1', 1), assistant('a1', 2)];
    const rows = [user(inWorkspace('q1'), 10), assistant('a1', 11), user(inWorkspace('q2'), 12), assistant('a2', 13)];

    expect(reconcileContext(local, rows, {})).toEqual([...local, rows[2], rows[3]]);
  });

  it('applies the watermark in the final merge', () => {
    const local = [user('q1', 1), assistant('a1', 2)];
    const rows = [user('q1', 10), assistant('a1', 11), user('undone', 12)];

    expect(reconcileContext(local, rows, { watermark: 2, boundary: 2 })).toEqual(local);
  });

  it('recognises compaction cards by their lower-cased, left-trimmed text', () => {
    expect([card, user('  context compaction: summary'), user('about context compaction')].map(isCompactionMarker)).toEqual([true, true, false]);
  });

  it('returns a compacted context unchanged when there is no anchor', () => {
    expect(reconcileContext(compacted, state, { compressionAnchor: null })).toEqual(compacted);
  });

  it('returns a compacted context unchanged when no agent row matches the anchor', () => {
    const elsewhere = { ...anchor, timestamp: 201.00001 };

    expect(reconcileContext(compacted, state, { compressionAnchor: elsewhere })).toEqual(compacted);
  });

  it('only takes agent rows after the anchor, so compacted prompts stay out', () => {
    expect(transcript(reconcileContext(compacted, state, { compressionAnchor: anchor }))).toEqual([
      ...transcript(compacted),
      'user: next question',
      'assistant: next answer',
    ]);
  });

  it('anchors on the last matching agent row', () => {
    const twice = [state[1]!, user('between anchors', 250), ...state];

    expect(transcript(reconcileContext(compacted, twice, { compressionAnchor: anchor }))).toEqual([
      ...transcript(compacted),
      'user: next question',
      'assistant: next answer',
    ]);
  });

  it('compares only the first 160 characters of the anchor text, and its attachment count', () => {
    const long = `${'x'.repeat(160)} tail`;
    const rows = [assistant(`${'x'.repeat(160)} other tail`, 201), user('after', 300)];
    const byPrefix = { ...anchor, text: long };

    expect(transcript(reconcileContext(compacted, rows, { compressionAnchor: byPrefix }))).toEqual([...transcript(compacted), 'user: after']);
    expect(reconcileContext(compacted, rows, { compressionAnchor: { ...byPrefix, attachmentCount: 1 } })).toEqual(compacted);
  });
});
