import type { MessageRow, ToolCard } from '../messages/message-row.js';
import { journalEvents, journalMaterialiser } from '../testing/journal-events.builder.js';

const RUN = 'run-1';
const ev = journalEvents(2000);
const materialise = journalMaterialiser(RUN, 1);
const anchor = (timestamp: number): MessageRow => ({
  role: 'assistant',
  content: '',
  timestamp,
  recoveredFromRunJournal: true,
  recoveredRunId: RUN,
});
const card = (name: string, index: number | null, extra: Partial<ToolCard> = {}): ToolCard => ({
  name,
  preview: '',
  args: {},
  done: false,
  isError: false,
  duration: null,
  assistantMessageIndex: index,
  recoveredFromRunJournal: true,
  recoveredRunId: RUN,
  ...extra,
});

describe('recovered tool cards', () => {
  it('hang every tool of a run without text under one anchor row (#3875)', () => {
    const events = [1, 2, 3, 4, 5, 6].map((seq) =>
      ev(seq, seq % 2 ? 'tool' : 'tool_complete', { name: `t${Math.ceil(seq / 2)}` }),
    );
    const result = materialise(events, { rows: [{ role: 'user', content: 'q' }] });
    expect([result.rows, result.context, result.toolCards]).toEqual([
      [{ role: 'user', content: 'q' }, anchor(2001)],
      [],
      [card('t1', 1, { done: true }), card('t2', 1, { done: true }), card('t3', 1, { done: true })],
    ]);
  });

  it('hang under the text row that precedes them', () => {
    const result = materialise([
      ev(1, 'tool', { name: 'a' }),
      ev(2, 'token', { text: 'Now b.' }),
      ev(3, 'tool', { name: 'b' }),
    ]);
    expect([result.rows.map((row) => row.content), result.toolCards]).toEqual([
      ['', 'Now b.'],
      [card('a', 0), card('b', 1)],
    ]);
  });

  it('reuse the run anchor on a re-run instead of adding a second one', () => {
    const first = materialise([ev(1, 'tool', { name: 'a' })]);
    const again = materialise([ev(1, 'tool', { name: 'a' }), ev(2, 'tool', { name: 'b' })], { ...first, dedupeExisting: true });
    expect([again.rows, again.toolCards, again.recovered]).toEqual([[anchor(2001)], [card('a', 0), card('b', 0)], true]);
  });

  it('default the name to tool and keep a missing preview empty', () => {
    expect(materialise([ev(1, 'tool', { args: 'not an object' })]).toolCards).toEqual([card('tool', 0)]);
  });

  it('complete the most recent open card of the same name', () => {
    const result = materialise([
      ev(1, 'tool', { name: 'read', preview: 'a.txt' }),
      ev(2, 'tool', { name: 'grep' }),
      ev(3, 'tool', { name: 'read', preview: 'b.txt' }),
      ev(4, 'tool_complete', { name: 'read', is_error: true, preview: 'b.txt: missing' }),
      ev(5, 'tool_complete', { name: 'read', duration: 0.5 }),
    ]);
    expect(result.toolCards).toEqual([
      card('read', 0, { preview: 'a.txt', done: true, duration: 0.5 }),
      card('grep', 0),
      card('read', 0, { preview: 'b.txt: missing', done: true, isError: true }),
    ]);
  });

  it('complete the most recent open card when the completion names no tool', () => {
    const result = materialise([ev(1, 'tool', { name: 'a' }), ev(2, 'tool', { name: 'b' }), ev(3, 'tool_complete', {})]);
    expect(result.toolCards).toEqual([card('a', 0), card('b', 0, { done: true })]);
  });

  it('skip on a re-run a card the UI already committed, but not one of another run', () => {
    const committed: ToolCard = {
      ...card('terminal', 0, { preview: 'ls   -la' }),
      recoveredFromRunJournal: false,
      recoveredRunId: null,
    };
    const otherRun: ToolCard = { ...card('grep', 0, { preview: 'x' }), recoveredRunId: 'run-0' };
    const result = materialise(
      [ev(1, 'tool', { name: 'terminal', preview: 'ls -la' }), ev(2, 'tool', { name: 'grep', preview: 'x' })],
      { toolCards: [committed, otherRun], dedupeExisting: true },
    );
    expect([result.rows, result.toolCards]).toEqual([[anchor(2002)], [committed, otherRun, card('grep', 0, { preview: 'x' })]]);
  });

  it('are added again without dedupe', () => {
    const committed: ToolCard = { ...card('terminal', null), recoveredRunId: null };
    expect(materialise([ev(1, 'tool', { name: 'terminal' })], { toolCards: [committed] }).toolCards).toEqual([
      committed,
      card('terminal', 0),
    ]);
  });
});

describe('recovered tool arguments on a card', () => {
  it('reach the card from the journal event', () => {
    const args = { command: 'c'.repeat(130), cwd: '/w', env: { A: '1' }, timeout: 30, extra: true };
    expect(materialise([ev(1, 'tool', { name: 'terminal', args })]).toolCards[0]?.args).toEqual({
      command: `${'c'.repeat(120)}...`,
      cwd: '/w',
      env: '{"A":"1"}',
      timeout: '30',
    });
  });
});
