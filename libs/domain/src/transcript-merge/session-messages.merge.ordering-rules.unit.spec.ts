import { mergeSessionMessages } from './session-messages.merge.js';
import { assistant, call, tool, transcript, user } from '../testing/merge-rows.fixture.js';

/** Named rules R7–R12 of reference §2.5. */
describe('when agent rows must be ordered, filtered and told apart', () => {
  it('R7 never puts a rescued prompt inside a multi-tool block, even with a timestamp between its rows', () => {
    const sidecar = [
      user('q', 100),
      assistant('two calls', 101, { toolCalls: [call('c-1'), call('c-2', 'grep')] }),
      tool('r1', 102, { toolCallId: 'c-1' }),
      tool('r2', 104, { toolCallId: 'c-2' }),
      assistant('answer', 105),
    ];

    expect(transcript(mergeSessionMessages(sidecar, [user('lost', 101.5)]))).toEqual([
      'user: q',
      'assistant: two calls',
      'tool: r1',
      'tool: r2',
      'user: lost',
      'assistant: answer',
    ]);
  });

  it('R8 drops a prompt older than the first sidecar row, which may have been compacted away', () => {
    const sidecar = [assistant('summary of older turns', 500), user('latest', 510), assistant('reply', 511)];

    expect(mergeSessionMessages(sidecar, [user('ancient prompt', 100)])).toEqual(sidecar);
  });

  it('R9 keeps turns deleted by undo out while letting turns committed after the watermark in', () => {
    const sidecar = [user('q', 100), assistant('a', 110), user('after undo', 200), assistant('fresh', 210)];
    const state = [
      user('q', 100),
      assistant('a', 110),
      user('undone', 150),
      assistant('undone reply', 160),
      user('after undo', 200.4),
      assistant('fresh', 210.4),
      user('from the CLI', 300),
    ];

    expect(transcript(mergeSessionMessages(sidecar, state, { watermark: 200, boundary: 110 }))).toEqual([
      'user: q',
      'assistant: a',
      'user: after undo',
      'assistant: fresh',
      'user: from the CLI',
    ]);
  });

  it('R10 appends identical agent rows beyond the number of sidecar copies', () => {
    const merged = mergeSessionMessages([user('same', 1000)], [user('same', 1000), user('same', 1001)]);

    expect(merged).toEqual([user('same', 1000), user('same', 1001)]);
  });

  it('R10 lets two identical sidecar rows absorb two replays', () => {
    const sidecar = [user('go', 10), assistant('same', 11), user('again', 12), assistant('same', 13)];
    const state = [assistant('same', 90), assistant('same', 91)];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });

  it('R11 keeps rows with the same text but different sub-second timestamps apart, and drops exact copies', () => {
    const sidecar = [user('start', 100), assistant('ok', 100)];
    const state = [user('start', 100), assistant('ok', 100), assistant('tick', 200.1), assistant('tick', 200.2), assistant('tick', 200.1)];

    expect(mergeSessionMessages(sidecar, state)).toEqual([...sidecar, assistant('tick', 200.1), assistant('tick', 200.2)]);
  });

  it('R12 never collapses assistant rows with equal empty text but different tool calls', () => {
    const sidecar = [user('q', 100), assistant('', 101, { toolCalls: [call('c-1')] }), tool('r1', 101, { toolCallId: 'c-1' })];
    const state = [
      user('q', 100.5),
      assistant('', 101.5, { toolCalls: [call('c-1')] }),
      tool('r1', 101.6, { toolCallId: 'c-1' }),
      assistant('', 300, { toolCalls: [call('c-2', 'grep')] }),
      tool('r2', 300, { toolCallId: 'c-2' }),
    ];

    expect(mergeSessionMessages(sidecar, state)).toEqual([...sidecar, state[3], state[4]]);
  });
});
