import type { MessageRow } from '../messages/message-row.js';
import { appendToContext, mirrorToContext, projectRowForContext, seedContext } from './context-rows.projection.js';

const user: MessageRow = { role: 'user', content: 'Summarise', timestamp: 200.4, recovered: true, attachments: ['a.png'] };
const assistant = (content: string): MessageRow => ({ role: 'assistant', content });

describe('the context projection of a row (§1.2)', () => {
  it('drops reasoning and keeps everything else', () => {
    const row: MessageRow = { role: 'assistant', content: 'Answer', reasoning: 'why', timestamp: 3, apiContent: 'raw' };
    expect(projectRowForContext(row)).toEqual({ role: 'assistant', content: 'Answer', timestamp: 3, apiContent: 'raw' });
  });

  it.each<[string, MessageRow]>([
    ['an error row', { role: 'assistant', content: 'Gateway failed', error: true }],
    ['a marker', { role: 'assistant', content: 'Response interrupted', error: true, type: 'interrupted' }],
    ['a reasoning-only row', { role: 'assistant', content: '', reasoning: 'thinking' }],
    ['reasoning-only parts without tool calls', { role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }],
    ['an empty partial row', { role: 'assistant', content: '  ', partial: true }],
    ['a row without content', { role: 'assistant' }],
  ])('is null for %s', (_name, row) => {
    expect(projectRowForContext(row)).toBeNull();
  });

  it('turns reasoning-only parts into empty text when the row calls tools', () => {
    const toolCalls = [{ id: 'c1' }];
    const row: MessageRow = { role: 'assistant', content: [{ type: 'reasoning', text: 'x' }], toolCalls };
    expect(projectRowForContext(row)).toEqual({ role: 'assistant', content: '', toolCalls });
  });

  it('keeps tool results, tool calls without text and image-only prompts', () => {
    const rows: MessageRow[] = [
      { role: 'tool', content: '', toolCallId: 'c1' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1' }] },
      { role: 'user', content: [{ type: 'image_url', imageUrl: { url: 'data:x' } }] },
    ];
    expect(rows.map(projectRowForContext)).toEqual(rows);
  });
});

describe('a seeded context', () => {
  it('projects every display row and keeps duplicates', () => {
    const rows: MessageRow[] = [
      assistant('same'),
      assistant('same'),
      { ...assistant('x'), error: true },
      { ...assistant('y'), reasoning: 'r' },
    ];
    expect(seedContext(rows)).toEqual([assistant('same'), assistant('same'), assistant('y')]);
  });
});

describe('appending to the context', () => {
  it('skips a user row when the last context row is the same checkpoint', () => {
    const sameSecond: MessageRow = {
      role: 'user',
      content: ' Summarise ',
      timestamp: 200.9,
      attachments: ['a.png'],
      source: 'webui',
    };
    expect(appendToContext([assistant('a'), sameSecond], user)).toEqual([assistant('a'), sameSecond]);
  });

  it('appends a user row whose checkpoint is not the last context row', () => {
    const context: MessageRow[] = [{ ...user }, assistant('reply')];
    expect(appendToContext(context, user)).toEqual([...context, user]);
  });

  it.each<[string, Partial<MessageRow>]>([
    ['text', { content: 'Summarise all' }],
    ['second', { timestamp: 201 }],
    ['source', { source: 'wakeup' }],
    ['attachments', { attachments: [] }],
  ])('appends a user row whose checkpoint differs by %s', (_field, patch) => {
    const last: MessageRow = { ...user, ...patch };
    expect(appendToContext([last], user)).toEqual([last, user]);
  });

  it('skips an assistant row that one of the last 8 assistant rows repeats', () => {
    const others = [1, 2, 3, 4, 5, 6, 7].map((n) => assistant(`a${n}`));
    const context: MessageRow[] = [assistant('Done  it'), ...others, { role: 'user', content: 'x' }];
    expect(appendToContext(context, { ...assistant('Done it'), reasoning: 'r' })).toEqual(context);
  });

  it('appends an assistant row last said 9 assistant rows ago', () => {
    const context = [assistant('Done it'), ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => assistant(`a${n}`))];
    expect(appendToContext(context, assistant('Done it'))).toEqual([...context, assistant('Done it')]);
  });

  it('appends the projection without reasoning and drops display-only rows', () => {
    expect([
      appendToContext([], { ...assistant('new'), reasoning: 'r' }),
      appendToContext([assistant('a')], { ...assistant('marker'), error: true }),
    ]).toEqual([[assistant('new')], [assistant('a')]]);
  });

  it('does not dedupe assistant rows that carry no text', () => {
    const call: MessageRow = { role: 'assistant', content: '', toolCalls: [{ id: 'c2' }] };
    expect(appendToContext([{ ...call, toolCalls: [{ id: 'c1' }] }], call)).toHaveLength(2);
  });
});

describe('mirroring a recovered row', () => {
  it('seeds an empty context from the display rows without doubling the row', () => {
    const display: MessageRow[] = [user, { ...assistant('a'), reasoning: 'r' }, assistant('new')];
    expect(mirrorToContext([], display, assistant('new'))).toEqual([user, assistant('a'), assistant('new')]);
  });

  it('leaves an empty context empty when the row is display-only', () => {
    expect(mirrorToContext([], [user], { ...assistant(''), reasoning: 'r' })).toEqual([]);
  });
});
