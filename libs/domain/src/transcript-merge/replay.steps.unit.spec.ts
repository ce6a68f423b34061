import { mergeSessionMessages } from './session-messages.merge.js';
import { assistant, transcript, user } from '../testing/merge-rows.fixture.js';
import type { MessageRow } from '../messages/message-row.js';

const photo = (text: string, timestamp: number, extra: Partial<MessageRow> = {}): MessageRow => ({
  role: 'user',
  content: [
    { type: 'text', text },
    { type: 'image_url', imageUrl: { url: 'data:image/png;base64,AAAA' } },
  ],
  timestamp,
  ...extra,
});

describe('when an agent row mirrors a rich sidecar image prompt (step 1)', () => {
  it('keeps the rich row, backfills it and skips the scalar mirror', () => {
    const sidecar = [photo('what is this?', 100), assistant('a cat', 101)];
    const state = [user('what is this?\n[screenshot]', 100, { meta: { usedModel: 'vision' } }), assistant('a cat', 101.5)];

    expect(mergeSessionMessages(sidecar, state)).toEqual([photo('what is this?', 100, { meta: { usedModel: 'vision' } }), sidecar[1]]);
  });

  it('advances the replay pointer past the mirrored row, so the rest of the turn replays', () => {
    const sidecar = [photo('look', 100), assistant('seen', 100), user('again', 102)];
    const state = [user('look [screenshot]', 100), assistant('seen', 100.5), user('again', 102.2)];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });
});

describe('when agent rows replay the sidecar from its first row (step 2)', () => {
  it('skips them although they are newer than the sidecar tail', () => {
    const sidecar = [user('hello', 100), assistant('hi there', 100)];
    const state = [user('hello', 5000.1), assistant('hi there', 5000.2)];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });

  it('leaves the pointer where it is on a row that does not match, and replays after it', () => {
    const sidecar = [user('hello', 100), assistant('hi there', 100)];
    const state = [assistant('from another surface', 4000), user('hello', 5000.1), assistant('hi there', 5000.2)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([
      'user: hello',
      'assistant: hi there',
      'assistant: from another surface',
    ]);
  });
});

describe('when an agent row carries the durable row id of one sidecar row (step 3)', () => {
  const sidecar = [user('q', 100), assistant('answer', 101, { rowId: 7 })];

  it('skips it even after the visible budget for that text is spent', () => {
    const state = [assistant('answer', 500), assistant('answer', 501, { rowId: 7, meta: { turnDuration: 3 } })];

    expect(mergeSessionMessages(sidecar, state)).toEqual([sidecar[0], assistant('answer', 101, { rowId: 7, meta: { turnDuration: 3 } })]);
  });

  it('does not match when the row id occurs twice in the agent store', () => {
    const state = [assistant('answer', 500), assistant('answer', 501, { rowId: 7 }), assistant('answer', 502, { rowId: 7 })];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual(['user: q', 'assistant: answer', 'assistant: answer', 'assistant: answer']);
  });

  it('notes a row-id conflict when both carry different provider bytes, and keeps both rows', () => {
    const kept = [user('q', 100), assistant('answer', 101, { rowId: 7, apiContent: 'bytes A' })];
    const other = assistant('answer', 101.5, { rowId: 7, apiContent: 'bytes B' });

    expect(mergeSessionMessages(kept, [other])).toEqual([...kept, other]);
  });
});
