import type { JournalEvent, MessageContent, MessageRow } from '../messages/message-row.js';

import { isBlank } from '../text/whitespace.js';

export { isBlank, ws } from '../text/whitespace.js';

type Payload = JournalEvent['payload'];

const REASONING_PART_TYPES: ReadonlySet<string> = new Set(['reasoning', 'thinking']);




/** The visible text of a content value: a string as-is, text parts joined by newlines. */
export function contentText(content: MessageContent | null | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part) => part.type === 'text' && typeof part['text'] === 'string')
    .map((part) => part['text'] as string)
    .join('\n');
}

export function rowText(row: MessageRow): string {
  return contentText(row.content);
}

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

/** The first of `keys` that holds a non-empty string (or a number) in a journal payload, else ''. */
export function payloadText(payload: Payload | undefined, ...keys: readonly string[]): string {
  for (const key of keys) {
    const value = payload?.[key];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  }
  return '';
}


/** Cuts to `max` code points and marks the cut with "..." (reference slices by code point). */
export function cutText(text: string, max: number): string {
  const codePoints = Array.from(text);
  return codePoints.length > max ? `${codePoints.slice(0, max).join('')}...` : text;
}

/** Integer epoch seconds of a time, or of the fallback when the time is missing, zero or not finite. */
export function wholeSeconds(time: number | null | undefined, fallback: number): number {
  const chosen = typeof time === 'number' && Number.isFinite(time) && time !== 0 ? time : fallback;
  return Math.trunc(chosen);
}
