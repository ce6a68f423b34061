import { mergeSessionMessages } from './session-messages.merge.js';
import { assistant, call, tool, transcript, user } from '../testing/merge-rows.fixture.js';

describe('when an agent row duplicates a row the output already holds', () => {
  it('step 7: drops an exact duplicate of an appended row, backfilling the first copy', () => {
    const sidecar = [user('q', 100), assistant('a', 101)];
    const state = [user('q', 100), assistant('a', 101), assistant('new', 200), assistant('new', 200, { meta: { turnTps: 41 } })];

    expect(mergeSessionMessages(sidecar, state)).toEqual([...sidecar, assistant('new', 200, { meta: { turnTps: 41 } })]);
  });

  it('step 7: drops an exact duplicate of a replayed row', () => {
    const sidecar = [user('q', 100), assistant('a', 101)];
    const state = [user('q', 100.3), assistant('a', 101.3), assistant('a', 101.3)];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });

  it('step 8: drops a same-second copy of a tool call inside the sidecar range, where step 10 would re-insert it', () => {
    const sidecar = [
      user('q', 100),
      assistant('calling', 101, { toolCalls: [call('c-1')] }),
      tool('out', 101, { toolCallId: 'c-1' }),
      assistant('done', 102),
    ];
    const state = [
      user('q', 100.2),
      assistant('calling', 101.2, { toolCalls: [call('c-1')] }),
      tool('out', 101.3, { toolCallId: 'c-1' }),
      assistant('done', 102.1),
      assistant('calling', 101.6, { toolCalls: [call('c-1')], meta: { usedModel: 'm' } }),
    ];

    expect(mergeSessionMessages(sidecar, state)).toEqual([
      sidecar[0],
      assistant('calling', 101, { toolCalls: [call('c-1')], meta: { usedModel: 'm' } }),
      sidecar[2],
      sidecar[3],
    ]);
  });

  it('step 8: keeps a same-second copy that is newer than the whole sidecar', () => {
    const sidecar = [user('q', 100), assistant('a', 101)];
    const state = [user('q', 100), assistant('a', 101), assistant('a', 101.7)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual(['user: q', 'assistant: a', 'assistant: a']);
  });

  it('step 9: drops visible duplicates of sidecar rows that did not replay from the start (R4)', () => {
    const sidecar = [user('setup', 100), assistant('ok', 101), user('next', 102), assistant('done', 103)];
    const state = [user('next', 900), assistant('done', 901)];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });

  it('step 9: stops dropping once the budget of sidecar copies is spent', () => {
    const sidecar = [user('setup', 100), assistant('ok', 101), assistant('ok', 102)];
    const state = [assistant('ok', 900), assistant('ok', 901), assistant('ok', 902)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([
      'user: setup',
      'assistant: ok',
      'assistant: ok',
      'assistant: ok',
    ]);
  });

  it('step 9: backfills the copy the budget consumed, in sidecar order', () => {
    const sidecar = [user('setup', 100), assistant('ok', 101), assistant('ok', 102)];
    const state = [assistant('ok', 900, { meta: { turnDuration: 1 } }), assistant('ok', 901, { meta: { turnDuration: 2 } })];

    expect(mergeSessionMessages(sidecar, state)).toEqual([
      sidecar[0],
      assistant('ok', 101, { meta: { turnDuration: 1 } }),
      assistant('ok', 102, { meta: { turnDuration: 2 } }),
    ]);
  });
});
