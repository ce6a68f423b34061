import { mergeSessionMessages } from './session-messages.merge.js';
import { assistant, call, inWorkspace, tool, transcript, user } from '../testing/merge-rows.fixture.js';

/**
 * The ten merge scenarios of the reference regression suite (lost-response regression, first ten
 * tests), told again with our own rows. Each asserts the whole merged transcript.
 */
describe('when the agent store replays or extends a sidecar transcript', () => {
  it('keeps the sidecar tail last when the agent store replays its prefix with newer sub-second timestamps', () => {
    const at = 1_780_000_000;
    const compactionCard =
      '[CONTEXT COMPACTION — REFERENCE ONLY] Older turns were folded into the summary below. ' +
      'It is a handoff from an earlier context window — background only, NOT instructions.';
    const sidecar = [
      user('draft the roadmap', at),
      assistant('roadmap loaded', at),
      tool('skill body', at),
      assistant('first answer', at),
      user(compactionCard, at),
      tool('{"ok": true, "note": "patched"}', at),
      user('any more pull requests?', at),
      assistant('Yes, but one at a time', at),
    ];
    const state = [
      user('draft the roadmap', at + 35_000.21),
      assistant('roadmap loaded', at + 35_000.22),
      tool('skill body', at + 35_000.23),
      assistant('first answer', at + 35_000.24),
      user('[CONTEXT COMPACTION — REFERENCE ONLY] Older turns were folded into the summary below. It is a handoff from an earlier context window.', at + 35_000.235),
      tool('{"ok": true, "note": "patched"}', at + 35_000.25, { toolCallId: 'agent-side-call-id' }),
      user(inWorkspace('any more pull requests?'), at + 35_000.26),
    ];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });

  it('adds nothing after the sidecar answer when the agent store replays the whole transcript', () => {
    const sidecar = [user('review this', 500), assistant('review', 500), user('now write yours', 500), assistant('preview opened', 500)];
    const state = [
      user('review this', 500.1),
      assistant('review', 500.2),
      user(inWorkspace('now write yours'), 500.3),
      assistant('preview opened', 500.4),
    ];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });

  it('puts a prompt only the agent store holds back before the newer sidecar tail', () => {
    const sidecar = [user('first prompt', 200), assistant('first reply', 201), assistant('recovered tail', 203)];
    const state = [user('first prompt', 200), assistant('first reply', 201), user('lost prompt', 202)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([
      'user: first prompt',
      'assistant: first reply',
      'user: lost prompt',
      'assistant: recovered tail',
    ]);
  });

  it('puts a rescued prompt before an answer that carries the same timestamp', () => {
    const merged = mergeSessionMessages([assistant('the answer', 300)], [user('the prompt', 300)]);

    expect(transcript(merged)).toEqual(['user: the prompt', 'assistant: the answer']);
  });

  it('puts a rescued prompt after an answered turn of the same second, not between its prompt and answer', () => {
    const sidecar = [user('earlier prompt', 400), assistant('earlier answer', 400), user('tail prompt', 400)];

    expect(transcript(mergeSessionMessages(sidecar, [user('lost prompt', 400)]))).toEqual([
      'user: earlier prompt',
      'assistant: earlier answer',
      'user: lost prompt',
      'user: tail prompt',
    ]);
  });

  it('never lands a rescued prompt between a tool call and its result', () => {
    const sidecar = [
      assistant('let me look', 600, { toolCalls: [call('c-1')] }),
      tool('file body', 601, { toolCallId: 'c-1' }),
      assistant('done reading', 603),
    ];

    expect(transcript(mergeSessionMessages(sidecar, [user('lost prompt', 600.5)]))).toEqual([
      'assistant: let me look',
      'tool: file body',
      'user: lost prompt',
      'assistant: done reading',
    ]);
  });

  it('keeps a same-second tool call and its result together when a rescued prompt shares their timestamp', () => {
    const sidecar = [
      user('p', 700),
      assistant('calling', 700, { toolCalls: [call('c-7')] }),
      tool('out', 700, { toolCallId: 'c-7' }),
      user('tail prompt', 700),
    ];

    expect(transcript(mergeSessionMessages(sidecar, [user('lost', 700)]))).toEqual([
      'user: p',
      'assistant: calling',
      'tool: out',
      'user: lost',
      'user: tail prompt',
    ]);
  });

  it('keeps a whole same-second block of several tool results together', () => {
    const sidecar = [
      user('p', 800),
      assistant('calling two', 800, { toolCalls: [call('c-1'), call('c-2', 'grep')] }),
      tool('first out', 800, { toolCallId: 'c-1' }),
      tool('second out', 800, { toolCallId: 'c-2' }),
      user('tail', 800),
    ];

    expect(transcript(mergeSessionMessages(sidecar, [user('lost', 800)]))).toEqual([
      'user: p',
      'assistant: calling two',
      'tool: first out',
      'tool: second out',
      'user: lost',
      'user: tail',
    ]);
  });

  it('does not revive a prompt older than the first sidecar row when there is no watermark', () => {
    const sidecar = [assistant('compaction summary', 900), assistant('current answer', 901)];

    expect(mergeSessionMessages(sidecar, [user('compacted-away prompt', 100)])).toEqual(sidecar);
  });

  it('adds nothing after the sidecar answer when the agent store replays a slice from its middle', () => {
    const sidecar = [
      user('setup', 1000),
      assistant('setup done', 1000),
      assistant('analysis first', 1000),
      user('now write yours', 1000),
      assistant('preview opened', 1000),
    ];
    const state = [assistant('analysis first', 1000.1), user(inWorkspace('now write yours'), 1000.2)];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });
});
