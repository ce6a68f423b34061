import type { MessageRow } from '../messages/message-row.js';
import { promptMatchOf } from './prompt-match.rule.js';

/** Prompt matching: the agent store's copy of a prompt, compared with the prompt as typed (R2, the inverse of R15). */
const T0 = 1_800_000_000;
const prompt = { text: 'Summarise  the report', submittedAt: T0 + 0.75 };
const image = { type: 'image_url', imageUrl: { url: 'data:image/png;base64,YWJj' } };
const user = (content: MessageRow['content'], timestamp = T0): MessageRow => ({ role: 'user', content, timestamp });

describe('an agent-store row holds the prompt by its visible text', () => {
  it.each([
    ['as typed', 'Summarise the report'],
    ['under a workspace tag', '[Workspace::v1: /srv/a\\]b]\nSummarise the report'],
    ['under a legacy workspace tag holding a Windows path', '[Workspace: C:\\Users\\dev\\]\nSummarise the report'],
    ['as its only text part beside an image', [{ type: 'text', text: 'Summarise the report' }, image]],
  ])('%s', (_how, content) => {
    expect(promptMatchOf(user(content, T0 - 500), prompt)).toBe('visible_text');
  });

  it('by its text after ONE tag when the prompt was typed with a tag (the prompt side is never stripped)', () => {
    const typed = { ...prompt, text: '[Workspace: /w] Summarise the report' };
    expect(promptMatchOf(user('[Workspace: /w] Summarise the report'), typed)).toBeNull();
    expect(promptMatchOf(user('[Workspace::v1: /a]\n[Workspace: /w] Summarise the report'), typed)).toBe('visible_text');
  });

  it('not for an assistant row with the same text', () => {
    expect(promptMatchOf({ role: 'assistant', content: 'Summarise the report', timestamp: T0 }, prompt)).toBeNull();
  });
});

describe('an agent-store row holds the prompt by its first text part', () => {
  const note = { type: 'text', text: 'Agent-only recall note' };

  it('when it is multipart, stamped from the submission second on, the first text part tagged or not', () => {
    expect(promptMatchOf(user([{ type: 'text', text: '[Workspace: C:\\Users\\dev\\]\nSummarise the report' }, image, note]), prompt)).toBe('first_text_part');
  });

  it('not when it is older than the submission second, or its first text part is another text', () => {
    expect(promptMatchOf(user([{ type: 'text', text: 'Summarise the report' }, image, note], T0 - 1), prompt)).toBeNull();
    expect(promptMatchOf(user([note, image, { type: 'text', text: 'Summarise the report' }]), prompt)).toBeNull();
  });

  it('alone when asked for that rule only (the prompt mirror)', () => {
    expect(promptMatchOf(user('Summarise the report'), prompt, ['first_text_part'])).toBeNull();
    expect(promptMatchOf(user([{ type: 'text', text: 'Summarise the report' }, image]), prompt, ['first_text_part'])).toBe('first_text_part');
  });
});
