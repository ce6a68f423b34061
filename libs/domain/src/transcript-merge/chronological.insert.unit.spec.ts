import { insertChronologically } from './chronological.insert.js';
import { assistant, call, tool, transcript, user } from '../testing/merge-rows.fixture.js';

/** Reference §2.4: the slot of a rescued row, its two guards and the pre-sidecar refusal. */
describe('when a row is placed chronologically', () => {
  const turn = [user('q1', 100), assistant('a1', 101), user('q2', 110), assistant('a2', 111)];

  it('appends a row without timestamp', () => {
    const { rows, inserted } = insertChronologically(turn, user('undated'));

    expect({ rows: transcript(rows), inserted }).toEqual({ rows: [...transcript(turn), 'user: undated'], inserted: true });
  });

  it('appends a row newer than every row', () => {
    expect(transcript(insertChronologically(turn, user('latest', 500)).rows)).toEqual([...transcript(turn), 'user: latest']);
  });

  it('goes before the first row with a later timestamp', () => {
    expect(transcript(insertChronologically(turn, user('between', 105)).rows)).toEqual([
      'user: q1',
      'assistant: a1',
      'user: between',
      'user: q2',
      'assistant: a2',
    ]);
  });

  it('refuses a row older than the first row and returns the list unchanged', () => {
    expect(insertChronologically(turn, user('ancient', 50))).toEqual({ rows: turn, inserted: false });
  });

  it('accepts slot 0 when the first row only ties (a prompt before its same-time answer)', () => {
    const { rows, inserted } = insertChronologically([assistant('answer', 100)], user('prompt', 100));

    expect({ rows: transcript(rows), inserted }).toEqual({ rows: ['user: prompt', 'assistant: answer'], inserted: true });
  });

  it('guard (a): moves past every tool result of a preceding tool call', () => {
    const rows = [
      assistant('calls', 100, { toolCalls: [call('c-1'), call('c-2')] }),
      tool('r1', 101, { toolCallId: 'c-1' }),
      tool('r2', 102, { toolCallId: 'c-2' }),
      assistant('done', 103),
    ];

    expect(transcript(insertChronologically(rows, user('lost', 100.5)).rows)).toEqual([
      'assistant: calls',
      'tool: r1',
      'tool: r2',
      'user: lost',
      'assistant: done',
    ]);
  });

  it('guard (a): does not move past tool rows that follow no tool call', () => {
    const rows = [assistant('plain', 100), tool('orphan', 101), tool('orphan 2', 102)];

    expect(transcript(insertChronologically(rows, assistant('between', 100.5)).rows)).toEqual([
      'assistant: plain',
      'assistant: between',
      'tool: orphan',
      'tool: orphan 2',
    ]);
  });

  it('guard (b): never enters an equal-timestamp run of its own role', () => {
    const rows = [user('u1', 100), user('u2', 100), assistant('a', 100)];

    expect(transcript(insertChronologically(rows, user('new', 100)).rows)).toEqual(['user: u1', 'user: u2', 'assistant: a', 'user: new']);
  });

  it('reaches a fixpoint: guard (b) can lead onto a tool block that guard (a) then skips', () => {
    const rows = [
      user('u', 100),
      assistant('call', 100, { toolCalls: [call('c-1')] }),
      tool('res', 100, { toolCallId: 'c-1' }),
      user('tail', 100),
    ];

    expect(transcript(insertChronologically(rows, user('missing', 100)).rows)).toEqual([
      'user: u',
      'assistant: call',
      'tool: res',
      'user: missing',
      'user: tail',
    ]);
  });

  it('puts a tool-call-only row before an equal-time text answer, even right after another assistant', () => {
    const rows = [user('q', 99), assistant('', 100, { toolCalls: [call('c-1')] }), assistant('final', 100)];
    const toolCallOnly = assistant('', 100, { toolCalls: [call('c-2')] });

    expect(insertChronologically(rows, toolCallOnly).rows).toEqual([rows[0], rows[1], toolCallOnly, rows[2]]);
  });

  it('does not modify the list it was given', () => {
    const rows = [user('q1', 100), assistant('a1', 101)];
    const before = structuredClone(rows);

    insertChronologically(rows, user('x', 100.5));

    expect(rows).toEqual(before);
  });
});
