import { isBlank } from '../text/whitespace.js';
import type { MessageContent, MessageRow } from './message-row.js';

/**
 * The text a row shows, read one way everywhere (the merge, the context, the journal, the markers): a string
 * content as is, list content as its text parts joined by newlines. Never throws on odd parts: an agent-store
 * row may carry anything.
 */
export function contentText(content: MessageContent | null | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content as readonly unknown[]) {
    const text = isRecord(part) && part['type'] === 'text' ? part['text'] : undefined;
    if (typeof text === 'string') texts.push(text);
  }
  return texts.join('\n');
}

export const rowText = (row: MessageRow): string => contentText(row.content);

const REASONING_PART_TYPES: ReadonlySet<string> = new Set(['reasoning', 'thinking']);

/** True when a structured content holds only reasoning/thinking parts. */
export function isReasoningOnlyContent(content: MessageContent | null | undefined): boolean {
  return Array.isArray(content) && content.length > 0 && content.every((part) => REASONING_PART_TYPES.has(part.type));
}

/** True when a content shows something: non-blank text, or any non-reasoning part that is not text. */
export function hasVisibleContent(content: MessageContent | null | undefined): boolean {
  if (typeof content === 'string') return !isBlank(content);
  if (!Array.isArray(content)) return false;
  return content.some((part) => {
    if (REASONING_PART_TYPES.has(part.type)) return false;
    if (part.type === 'text') return !isBlank(part['text']);
    return true;
  });
}

export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
