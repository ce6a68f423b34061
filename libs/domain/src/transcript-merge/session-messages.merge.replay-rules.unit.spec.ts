import { mergeSessionMessages } from './session-messages.merge.js';
import { visibleKey } from './comparison-keys.builder.js';
import { assistant, call, inWorkspace, tool, transcript, user } from '../testing/merge-rows.fixture.js';

/** Named rules R1–R6 of reference §2.5. */
describe('when the agent store re-stamps and re-prefixes rows the sidecar holds', () => {
  it('R1 matches a replayed prefix by role, ws text and tool calls, ignoring timestamps and tool_call_id', () => {
    const sidecar = [
      user('plan  it', 1_779_309_765),
      assistant('', 1_779_309_765, { toolCalls: [call('c-1')] }),
      tool('result', 1_779_309_765, { toolCallId: 'c-1' }),
      assistant('planned', 1_779_309_765),
    ];
    const state = [
      user('plan it', 1_779_344_917.278),
      assistant('', 1_779_344_917.285, { toolCalls: [call('c-1')] }),
      tool('result', 1_779_344_917.292, { toolCallId: 'agent-own-id' }),
      assistant('planned', 1_779_344_917.307),
    ];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });

  it('R1 matches a compaction-card variant through the loose-token rule', () => {
    const sidecar = [user('[Context compaction] Earlier turns, summarised — read as background!', 100), assistant('ok', 101)];
    const state = [user('[CONTEXT COMPACTION]  earlier turns summarised: read as background', 900), assistant('ok', 901)];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });

  it('R2 strips the workspace tag from agent-store user rows only', () => {
    const typed = user('[Workspace: /srv] notes');

    expect(visibleKey(user(inWorkspace('hi', '/srv/a\\]b')), 'state')).toBe(visibleKey(user('hi'), 'sidecar'));
    expect(visibleKey(typed, 'state')).toBe(visibleKey(user('notes'), 'state'));
    expect(visibleKey(typed, 'sidecar')).not.toBe(visibleKey(user('notes'), 'sidecar'));
    expect(visibleKey(assistant(inWorkspace('hi')), 'state')).not.toBe(visibleKey(assistant('hi'), 'sidecar'));
  });

  it('R2 keeps the stored content of an appended agent row, prefix included', () => {
    const sidecar = [user('hi', 100), assistant('hello', 101)];
    const state = [user(inWorkspace('hi'), 900), assistant('hello', 901), user(inWorkspace('next question'), 950)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual(['user: hi', 'assistant: hello', `user: ${inWorkspace('next question')}`]);
  });

  it('R3 consumes a full replay entirely, so the last replayed prompt never lands after the answer', () => {
    const sidecar = [user('one', 10), assistant('two', 10), user('three', 10), assistant('four', 10)];
    const state = sidecar.map((row, i) => ({ ...row, timestamp: 50 + i / 10 }));

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });

  it('R4 drops a middle-segment replay through the visible budget while the pointer stays at the start', () => {
    const sidecar = [user('alpha', 10), assistant('beta', 10), user('gamma', 10), assistant('delta', 10)];
    const state = [user(inWorkspace('gamma'), 60), assistant('delta', 61), user('epsilon', 62)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([...transcript(sidecar), 'user: epsilon']);
  });

  it('R5 inserts an in-range state-only prompt at its slot and appends one newer than the sidecar', () => {
    const sidecar = [user('q1', 100), assistant('a1', 101), assistant('tail', 110)];
    const state = [user('q1', 100), assistant('a1', 101), user('missing', 105), user('newest', 120)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([
      'user: q1',
      'assistant: a1',
      'user: missing',
      'assistant: tail',
      'user: newest',
    ]);
  });

  it('R6 puts a tool-call-only row before a text answer with the same timestamp', () => {
    const sidecar = [
      user('q', 100),
      assistant('', 101, { toolCalls: [call('c-1')] }),
      tool('r1', 101, { toolCallId: 'c-1' }),
      assistant('final', 103),
    ];
    const state = [assistant('', 103, { toolCalls: [call('c-2')] })];

    expect(mergeSessionMessages(sidecar, state)).toEqual([...sidecar.slice(0, 3), state[0], sidecar[3]]);
  });

  it('R6 keeps same-timestamp sidecar rows in sidecar order, a rescued prompt going before the first same-time answer', () => {
    const sidecar = [assistant('b', 100), user('a', 100), assistant('c', 100), user('d', 100)];

    expect(transcript(mergeSessionMessages(sidecar, [user('new', 100)]))).toEqual([
      'user: new',
      'assistant: b',
      'user: a',
      'assistant: c',
      'user: d',
    ]);
  });
});
