import type { JournalEvent, MessageContent, MessageRow } from '../messages/message-row.js';

type Payload = JournalEvent['payload'];

const REASONING_PART_TYPES: ReadonlySet<string> = new Set(['reasoning', 'thinking']);

const WHITESPACE_RUN = /\s+/g;
/** Anything ws() would change: a non-space blank, two blanks in a row, or a blank at either end. */
const NOT_NORMALISED = /[^\S ]|\s\s|^\s|\s$/;

/**
 * Reference "ws(x)": collapse every whitespace run to one space and trim. It runs on every journal token and
 * row a materialisation looks at, so text that is already normal (most) is returned after one scan, without
 * the word array a split would build. `trim()` strips exactly what `\s` matches, so this equals the
 * split-on-`\s+`-and-join definition.
 */
export function ws(value: unknown): string {
  const text = typeof value === 'string' ? value : value == null ? '' : String(value);
  return NOT_NORMALISED.test(text) ? text.replace(WHITESPACE_RUN, ' ').trim() : text;
}

const NON_BLANK = /\S/;

/** `ws(value) === ''` without building the normalised text: only whether a non-blank character exists matters. */
export function isBlank(value: unknown): boolean {
  const text = typeof value === 'string' ? value : value == null ? '' : String(value);
  return !NON_BLANK.test(text);
}

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

/** JSON with object keys sorted at every depth; `undefined` members are left out. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
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
