import { mergeSessionMessages } from './session-messages.merge.js';
import { assistant, call, tool, transcript, user } from '../testing/merge-rows.fixture.js';

describe('when an agent row falls inside the sidecar time range and the sidecar lacks it (step 10)', () => {
  it('appends a same-second reply after an edit once the whole sidecar has replayed', () => {
    const sidecar = [user('q', 100), user('q edited', 120)];
    const state = [user('q', 100), user('q edited', 120), assistant('reply to the edit', 120)];

    expect(transcript(mergeSessionMessages(sidecar, state, { watermark: 120, boundary: 100 }))).toEqual([
      'user: q',
      'user: q edited',
      'assistant: reply to the edit',
    ]);
  });

  it('drops that reply when the sidecar has not been replayed', () => {
    const sidecar = [user('q', 100), user('q edited', 120)];

    expect(mergeSessionMessages(sidecar, [assistant('reply to the edit', 120)], { watermark: 120, boundary: 100 })).toEqual(sidecar);
  });

  it('inserts a tool call with known text but new calls at its chronological slot', () => {
    const sidecar = [
      user('q', 100),
      assistant('', 101, { toolCalls: [call('c-1')] }),
      tool('first out', 101, { toolCallId: 'c-1' }),
      assistant('final', 105),
    ];
    const state = [assistant('', 102, { toolCalls: [call('c-2')] })];

    expect(mergeSessionMessages(sidecar, state)).toEqual([...sidecar.slice(0, 3), state[0], sidecar[3]]);
  });

  it('drops a tool call older than the first sidecar row (R8)', () => {
    const sidecar = [assistant('', 200, { toolCalls: [call('c-1')] }), tool('out', 200, { toolCallId: 'c-1' }), assistant('final', 201)];

    expect(mergeSessionMessages(sidecar, [assistant('', 100, { toolCalls: [call('c-9')] })])).toEqual(sidecar);
  });

  it('rescues a user prompt the sidecar lacks into its chronological slot (R5)', () => {
    const sidecar = [user('q1', 100), assistant('a1', 101), user('q3', 110), assistant('a3', 111)];

    expect(transcript(mergeSessionMessages(sidecar, [user('q2', 105)]))).toEqual([
      'user: q1',
      'assistant: a1',
      'user: q2',
      'user: q3',
      'assistant: a3',
    ]);
  });

  it('drops an assistant row the sidecar lacks, assuming it was already observed', () => {
    const sidecar = [user('q1', 100), assistant('a1', 101), user('q3', 110)];

    expect(mergeSessionMessages(sidecar, [assistant('never shown', 105)])).toEqual(sidecar);
  });

  it('leaves rows with a stable id to step 11, which appends them', () => {
    const sidecar = [user('q1', 100), assistant('a1', 110)];
    const state = [user('typed elsewhere', 105, { id: 'msg-9' })];

    expect(mergeSessionMessages(sidecar, state)).toEqual([...sidecar, state[0]]);
  });
});

describe('when an agent row is newer than the sidecar and unknown to it (step 11)', () => {
  it('appends it after the tail, verbatim', () => {
    const sidecar = [user('q', 100), assistant('a', 101)];
    const fresh = user('[Workspace::v1: /srv/app]\nfollow-up', 200, { rowId: 3 });

    expect(mergeSessionMessages(sidecar, [fresh])).toEqual([...sidecar, fresh]);
  });

  it('appends rows without a timestamp', () => {
    const sidecar = [user('q', 100), assistant('reply', 101)];

    expect(transcript(mergeSessionMessages(sidecar, [assistant('undated note')]))).toEqual([
      'user: q',
      'assistant: reply',
      'assistant: undated note',
    ]);
  });
});
