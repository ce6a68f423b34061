import { stateDeltaAfterContext } from './context-delta.align.js';
import { assistant, inWorkspace, transcript, user } from '../testing/merge-rows.fixture.js';

/** Reference §2.6 `state_db_delta_after_context`: which agent rows come after the model context. */
describe('when the agent store is aligned against the model context', () => {
  it('returns the rows after a context that the agent store starts with', () => {
    const local = [user('q1', 1), assistant('a1', 2), user('q2', 3), assistant('a2', 4)];
    const state = [user(inWorkspace('q1'), 10), assistant('a1', 11), user(inWorkspace('q2'), 12), assistant('a2', 13), user('q3', 14)];

    expect(stateDeltaAfterContext(local, state)).toEqual([state[4]]);
  });

  it('aligns at any offset into the context', () => {
    const local = [assistant('compacted summary', 1), user('q1', 2), assistant('a1', 3)];
    const state = [user('q1', 10), assistant('a1', 11), user('q2', 12)];

    expect(stateDeltaAfterContext(local, state)).toEqual([state[2]]);
  });

  it('returns the agent rows unchanged when the longest aligned run is a single row', () => {
    const local = [user('q1', 1), assistant('a1', 2)];
    const state = [user('q1', 10), assistant('something else', 11), user('q2', 12)];

    expect(stateDeltaAfterContext(local, state)).toEqual(state);
  });

  it('accepts a single aligned row when the context starts with a recovered user row', () => {
    const local = [user('q1', 1, { recovered: true }), assistant('marker text', 2)];
    const state = [user('q1', 10), assistant('real answer', 11), user('q2', 12)];

    expect(transcript(stateDeltaAfterContext(local, state))).toEqual(['assistant: real answer', 'user: q2']);
  });

  it('does not accept a single row for a recovered user row further in', () => {
    const local = [assistant('x', 0), user('q1', 1, { recovered: true }), assistant('marker text', 2)];
    const state = [user('q1', 10), assistant('real answer', 11)];

    expect(stateDeltaAfterContext(local, state)).toEqual(state);
  });

  it('returns the agent rows after the last aligned one once the whole context is consumed', () => {
    const local = [user('q1', 1), assistant('a1', 2)];
    const state = [user('q1', 10), assistant('a1', 11), user('q2', 12), assistant('a2', 13)];

    expect(transcript(stateDeltaAfterContext(local, state))).toEqual(['user: q2', 'assistant: a2']);
  });

  it('quirk: restarts the context cursor at the run length, not at offset + run length', () => {
    const local = [user('A', 1), assistant('B', 2), user('C', 3), assistant('D', 4)];
    const state = [assistant('B', 10), user('C', 11), user('C', 12), assistant('D', 13), user('E', 14)];

    // The run B,C sits at offset 1; re-aligning from index 2 on both sides pairs local C,D with state C,D.
    expect(transcript(stateDeltaAfterContext(local, state))).toEqual(['user: E']);
  });

  it('prefers the earliest offset among equally long runs', () => {
    const local = [user('q', 1), assistant('a', 2), user('q', 3), assistant('a', 4)];
    const state = [user('q', 10), assistant('a', 11), user('q', 12), assistant('a', 13), user('new', 14)];

    expect(transcript(stateDeltaAfterContext(local, state))).toEqual(['user: new']);
  });
});
