import { mergeSessionMessages } from './session-messages.merge.js';
import { assistant, call, inWorkspace, transcript, user } from '../testing/merge-rows.fixture.js';

/**
 * Known lossy or surprising behaviours of the reference (§2.7), reproduced on purpose: clients of
 * the reference saw exactly these transcripts. Each test is named after its quirk.
 */
describe('when the reference merge is lossy or surprising', () => {
  const turns = [user('q1', 100), assistant('a1', 101), user('q2', 110), assistant('a2', 111)];

  it('quirk: fuzzy substring drops a newer "Done" row when a sidecar assistant row contains "Done"', () => {
    const sidecar = [user('build it', 100), assistant('Done — the build is green.', 101)];
    const state = [user('ship it', 300), assistant('Done', 301)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([...transcript(sidecar), 'user: ship it']);
  });

  it('quirk: a one-character sidecar row swallows any same-role agent row containing that character', () => {
    const sidecar = [user('q', 100), assistant('a', 101)];

    expect(mergeSessionMessages(sidecar, [assistant('a brand new answer', 500)])).toEqual(sidecar);
  });

  it('quirk: a new prompt contained in an earlier sidecar prompt is dropped while that prompt\u2019s copy budget lasts', () => {
    const sidecar = [user('please deploy the staging server', 100), assistant('deployed', 101)];
    const state = [user('deploy', 400), user('deploy', 401)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([...transcript(sidecar), 'user: deploy']);
  });

  it('quirk: an in-range assistant row without tool calls that the sidecar never had is dropped', () => {
    expect(mergeSessionMessages(turns, [assistant('genuinely missing reply', 105)])).toEqual(turns);
  });

  it('quirk: an in-range tool-call row whose text matches no sidecar row is dropped', () => {
    expect(mergeSessionMessages(turns, [assistant('let me grep', 105, { toolCalls: [call('c-9', 'grep')] })])).toEqual(turns);
  });

  it('quirk: a repeated prompt that only the agent store holds inside the sidecar range is dropped', () => {
    const sidecar = [user('continue', 100), assistant('step one', 101), assistant('step three', 120)];
    const state = [user('continue', 100), assistant('step one', 101), user('continue', 110)];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });

  it('quirk: rows without timestamps bypass the watermark and are appended unless caught by the dedup key or fuzzy matching', () => {
    const sidecar = [user('q', 100), assistant('reply', 101)];
    const state = [assistant('undone but undated'), assistant('undone and dated', 150), assistant('reply.')];

    expect(transcript(mergeSessionMessages(sidecar, state, { watermark: 101, boundary: 101 }))).toEqual([
      'user: q',
      'assistant: reply',
      'assistant: undone but undated',
    ]);
  });

  it('quirk: appended and inserted agent rows keep their raw content, workspace prefix included', () => {
    const sidecar = [user('q1', 100), assistant('a1', 101), assistant('tail', 110)];
    const state = [user(inWorkspace('missing'), 105), user(inWorkspace('newest'), 200)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([
      'user: q1',
      'assistant: a1',
      `user: ${inWorkspace('missing')}`,
      'assistant: tail',
      `user: ${inWorkspace('newest')}`,
    ]);
  });

  it('quirk: with an empty sidecar and W advanced twice, the turns between B and the latest W are dropped', () => {
    const state = [
      user('q1', 10),
      assistant('a1', 11),
      user('deleted', 20),
      user('turn after the truncation', 30),
      assistant('its reply', 31),
      user('latest turn', 40),
      assistant('latest reply', 41),
    ];

    expect(transcript(mergeSessionMessages([], state, { watermark: 40, boundary: 11 }))).toEqual([
      'user: q1',
      'assistant: a1',
      'user: latest turn',
      'assistant: latest reply',
    ]);
  });

  it('quirk (#7244): an in-range agent row with a stable id skips the chronological insert and lands at the tail', () => {
    const sidecar = [user('q1', 100), assistant('a1', 101), assistant('tail', 110)];
    const typed = user('prompt from another client', 105, { id: 'client-7' });

    expect(mergeSessionMessages(sidecar, [typed])).toEqual([...sidecar, typed]);
  });
});
