import { mergeSessionMessages } from './session-messages.merge.js';
import { assistant, transcript, user } from '../testing/merge-rows.fixture.js';

describe('when the agent store has no rows (branch A)', () => {
  it('returns the sidecar unchanged', () => {
    const sidecar = [user('hi', 1), assistant('hello', 2)];

    expect(mergeSessionMessages(sidecar, [], { watermark: 1 })).toEqual(sidecar);
  });
});

describe('when the sidecar lost its rows (branch B, cold recovery)', () => {
  const state = [
    user('first', 10),
    assistant('first answer', 11),
    user('deleted by undo', 20),
    assistant('deleted answer', 21),
    user('after undo', 30),
    assistant('after undo answer', 31),
  ];

  it('keeps every agent row when there is no watermark', () => {
    expect(mergeSessionMessages([], state)).toEqual(state);
  });

  it('returns nothing when the watermark is the 0 clear sentinel', () => {
    expect(mergeSessionMessages([], state, { watermark: 0, boundary: 0 })).toEqual([]);
  });

  it('drops the deleted suffix between B and W when the boundary is older than the watermark', () => {
    const merged = mergeSessionMessages([], [...state, user('no timestamp')], { watermark: 30, boundary: 11 });

    expect(transcript(merged)).toEqual(['user: first', 'assistant: first answer', 'user: after undo', 'assistant: after undo answer']);
  });

  it('lists the rows up to B before the rows from W on, whatever their agent-store order', () => {
    const merged = mergeSessionMessages([], [user('late', 40), user('early', 5)], { watermark: 30, boundary: 10 });

    expect(transcript(merged)).toEqual(['user: early', 'user: late']);
  });

  it('keeps only rows up to W when there is no boundary', () => {
    const merged = mergeSessionMessages([], state, { watermark: 21 });

    expect(transcript(merged)).toEqual(['user: first', 'assistant: first answer', 'user: deleted by undo', 'assistant: deleted answer']);
  });

  it('keeps only rows up to W when the boundary equals the watermark', () => {
    expect(transcript(mergeSessionMessages([], state, { watermark: 11, boundary: 11 }))).toEqual(['user: first', 'assistant: first answer']);
  });

  it('drops exact duplicates, the first copy keeping the later copies\u2019 display metadata', () => {
    const rows = [
      assistant('same', 10, { meta: { usedModel: '' } }),
      assistant('same', 10, { meta: { usedModel: 'model-x', turnDuration: 2 } }),
      assistant('same', 10.5),
    ];

    expect(mergeSessionMessages([], rows)).toEqual([
      assistant('same', 10, { meta: { usedModel: 'model-x', turnDuration: 2 } }),
      assistant('same', 10.5),
    ]);
  });
});

describe('when the sidecar owns a cancelled turn (step C.2, R14)', () => {
  const owned = [
    user('question', 100),
    assistant('half an ans', 101, { partial: true }),
    assistant('**Response interrupted.**', 102, { error: true, type: 'interrupted' }),
  ];
  const state = [user('question', 100.2), assistant('the full answer the agent finished', 101.5), user('next from CLI', 200)];

  it('ignores every agent row for that turn and after', () => {
    expect(mergeSessionMessages(owned, state)).toEqual(owned);
  });

  it('merges normally once a newer user row follows the error row', () => {
    const sidecar = [...owned, user('retry please', 103)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([
      ...transcript(sidecar),
      'user: next from CLI',
    ]);
  });

  it('merges normally when the errored turn has no partial snapshot', () => {
    const sidecar = [owned[0]!, owned[2]!];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([...transcript(sidecar), 'user: next from CLI']);
  });
});
