import type { JournalEvent } from '../messages/message-row.js';

/** Helpers for the text of journal payloads. */

type Payload = JournalEvent['payload'];

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
