import { canonicalJson, evolveAll, initialSessionState, projectSession, render, type MessageRow, type SessionEvent } from '../index.js';
import { mirrorsPrompt, unmirror } from './prompt-mirror.js';
import {
  assistant,
  interrupted,
  journal,
  observed,
  recorded,
  recoveredFromAgentStore,
  settled,
  started,
  stateRow,
  submitted,
  user,
} from '../testing/session.fixtures.js';

/**
 * The agent-store mirror of a turn's prompt (prompt-mirror.ts, the inverse of reference §2.5 R15; defects D3, D4):
 * a multipart agent user row whose first text part is the prompt, stamped from the submission second on, is the
 * prompt row's mirror: the display shows the prompt row only, the context carries the agent row's content.
 */
const T0 = 1_800_000_000;
const prompt = 'Describe the attached image';
const attachment = { name: 'sample.png', mime: 'image/png', isImage: true };
const imagePart = { type: 'image_url', imageUrl: { url: 'data:image/png;base64,YWJj' } };
const note = 'Agent-only recall note';
const multipart = (...texts: string[]): MessageRow['content'] => [{ type: 'text', text: texts[0]! }, imagePart, ...texts.slice(1).map((text) => ({ type: 'text', text }))];
const earlier = [user('old question', T0 - 2), assistant('old answer', T0 - 1)];
const earlierRows = [stateRow(1, earlier[0]!), stateRow(2, earlier[1]!)];
const base: SessionEvent[] = [started('s1', T0 - 100), recorded(...earlier), submitted('img-run', prompt, T0, [attachment])];
const promptRows = (rows: readonly MessageRow[]) => rows.filter((row) => row.role === 'user' && JSON.stringify(row.content).includes(prompt));

describe('the prompt mirror rule (mirrorsPrompt)', () => {
  const row = (content: MessageRow['content'], timestamp = T0): MessageRow => ({ role: 'user', content, timestamp });

  it('holds for a multipart row whose first text part is the prompt, prefix stripped and whitespace collapsed', () => {
    expect(mirrorsPrompt(row(multipart('[Workspace::v1: /home/ws]\n  Describe  the attached\nimage ', note)), { text: prompt, submittedAt: T0 + 0.75 })).toBe(true);
  });

  it('does not hold for another first text part, a row older than the submission second, or a scalar row', () => {
    expect(mirrorsPrompt(row(multipart(note, prompt)), { text: prompt, submittedAt: T0 })).toBe(false);
    expect(mirrorsPrompt(row(multipart(prompt), T0 - 1), { text: prompt, submittedAt: T0 + 0.5 })).toBe(false);
    expect(mirrorsPrompt(row(prompt), { text: prompt, submittedAt: T0 })).toBe(false);
    expect(mirrorsPrompt({ ...row(multipart(prompt)), role: 'assistant' }, { text: prompt, submittedAt: T0 })).toBe(false);
  });
});

describe('an agent mirror of the pending prompt', () => {
  it('is not shown while the turn is pending: the pending prompt row is, with its attachments', () => {
    const view = projectSession([...base, observed([...earlierRows, stateRow(3, { role: 'user', content: multipart(prompt, note), timestamp: T0 })], T0 + 5)]);
    expect(promptRows(view.display)).toEqual([{ role: 'user', content: prompt, timestamp: T0, attachments: [attachment] }]);
  });
});

describe('an agent mirror of an agent-store recovery (D3)', () => {
  const events = [
    ...base,
    observed([...earlierRows, stateRow(3, { role: 'user', content: multipart(prompt, note), timestamp: T0 }), stateRow(4, assistant('tail', T0 + 1))], T0 + 40),
    recoveredFromAgentStore('img-run', T0 + 45),
  ];

  it('commits the submitted prompt row carrying the mirror rowId; the context row at that time carries the agent content', () => {
    const view = projectSession(events);
    expect(view.display.slice(2)).toEqual([
      { role: 'user', content: prompt, timestamp: T0, attachments: [attachment], rowId: 3 },
      { role: 'assistant', content: 'tail', timestamp: T0 + 1, rowId: 4 },
    ]);
    expect(promptRows(view.context)).toEqual([expect.objectContaining({ content: multipart(prompt, note), timestamp: T0 })]);
  });

  it('stays paired after a later turn settles and the agent store is observed again', () => {
    const later = [
      settled('r2', [user('next', T0 + 100), assistant('next answer', T0 + 101)], T0 + 102),
      observed([stateRow(5, user('next', T0 + 100)), stateRow(6, assistant('next answer', T0 + 101))], T0 + 103),
    ];
    const view = projectSession([...events, ...later]);
    expect(promptRows(view.display)).toHaveLength(1);
    expect(JSON.stringify(view.display)).not.toContain(note);
    expect(promptRows(view.context).map((row) => row.content)).toEqual([multipart(prompt, note)]);
  });
});

describe('an agent mirror of an interrupted turn\'s recovered prompt row (D4)', () => {
  const mirror = stateRow(3, { role: 'user', content: multipart(prompt), timestamp: T0 });
  const token = journal('img-run', 1, 'token', { text: 'Recovered partial text.' }, T0 + 3);

  it('leaves one recovered prompt row in the display and one prompt (the agent content) in the context', () => {
    const view = projectSession([...base, observed([...earlierRows, mirror], T0 + 40), token, interrupted('img-run', T0 + 45)]);
    expect(promptRows(view.display)).toEqual([{ role: 'user', content: prompt, timestamp: T0, recovered: true, attachments: [attachment] }]);
    expect(promptRows(view.context)).toEqual([expect.objectContaining({ content: multipart(prompt), recovered: true })]);
  });

  it('gives the same view when the agent row is observed only after the interruption', () => {
    const before = projectSession([...base, observed([...earlierRows, mirror], T0 + 40), token, interrupted('img-run', T0 + 45)]);
    const after = projectSession([...base, observed(earlierRows, T0 + 40), token, interrupted('img-run', T0 + 45), observed([mirror], T0 + 50)]);
    expect(canonicalJson({ display: after.display, context: after.context })).toBe(canonicalJson({ display: before.display, context: before.context }));
  });

  it('does not take an agent row of a later turn that opens with the same text (newer than the next prompt shown)', () => {
    const shown = [user(prompt, T0, { recovered: true }), assistant('marker', T0 + 45), user('other', T0 + 100)];
    const prompts = [{ index: 0, text: prompt, submittedAt: T0 }];
    const laterTurn = stateRow(9, { role: 'user', content: multipart(prompt), timestamp: T0 + 200 });
    expect(unmirror(shown, prompts, [laterTurn]).pairs).toEqual([]);
    expect(unmirror(shown.slice(0, 2), prompts, [laterTurn]).pairs).toEqual([{ prompt: 0, agentRow: laterTurn }]);
  });

  it('pairs each prompt with at most one agent row, and an agent row shown by another row with none', () => {
    const shown = [user(prompt, T0, { recovered: true })];
    const prompts = [{ index: 0, text: prompt, submittedAt: T0 }];
    const first = stateRow(3, { role: 'user', content: multipart(prompt), timestamp: T0 });
    const second = stateRow(4, { role: 'user', content: multipart(prompt), timestamp: T0 + 1 });
    expect(unmirror(shown, prompts, [first, second])).toEqual({ stateRows: [second], pairs: [{ prompt: 0, agentRow: first }] });
    const carried = [{ ...first }, ...shown];
    expect(unmirror(carried, [{ ...prompts[0]!, index: 1 }], [first]).pairs).toEqual([]);
  });

  it('folds to the same state with the fast commit path and with the full merge', () => {
    const events = [...base, observed([...earlierRows, mirror], T0 + 40), token, interrupted('img-run', T0 + 45), recorded(user('q', T0 + 60))];
    const fast = evolveAll(initialSessionState(), events);
    expect(canonicalJson(fast)).toBe(canonicalJson(evolveAll(initialSessionState(), events, { alwaysMerge: true })));
    expect(render(fast).display).toHaveLength(6);
  });
});
