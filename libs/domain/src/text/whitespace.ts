import { V8_MAX_HASHED_LENGTH } from './text.map.js';

/**
 * The reference's ws(x) (§2.1): whitespace runs collapsed to one space, trimmed. The one definition, used by
 * the merge, the journal materialisation and the projection alike.
 */

const WHITESPACE_RUN = /\s+/g;
/** Anything ws() would change: a non-space blank, two blanks in a row, or a blank at either end. */
const NOT_NORMALISED = /[^\S ]|\s\s|^\s|\s$/;

/** ws(x): collapse every run of whitespace to one space, then trim. Already-normal text is returned as is. */
export function ws(text: unknown): string {
  const value = String(text ?? '');
  if (memo === null || value.length < MEMO_MIN_LENGTH || value.length > V8_MAX_HASHED_LENGTH) return normalise(value);
  let normal = memo.get(value);
  if (normal === undefined) memo.set(value, (normal = normalise(value)));
  return normal;
}

function normalise(value: string): string {
  return NOT_NORMALISED.test(value) ? value.replace(WHITESPACE_RUN, ' ').trim() : value;
}

/**
 * One merge normalises the same long texts several times (the api pre-pass, the comparison keys, the
 * context alignment, and the sidecar and agent copies of one text), each a full regex scan. Within
 * `withTextMemo`, ws() of a text is computed once: a Map lookup of a string costs a hash computed
 * once per string (V8 keeps it in the string). ws() is a function of the string alone, so the memo
 * cannot change a result; it lives only for the outermost call. Short texts are cheaper to scan, and
 * texts V8 does not hash would all collide (see text.map.ts), so neither is memoised.
 */
let memo: Map<string, string> | null = null;
const MEMO_MIN_LENGTH = 128;

export function withTextMemo<T>(run: () => T): T {
  if (memo !== null) return run();
  memo = new Map();
  try {
    return run();
  } finally {
    memo = null;
  }
}

const NON_BLANK = /\S/;

/** `ws(value) === ''` without building the normalised text: only whether a non-blank character exists matters. */
export function isBlank(value: unknown): boolean {
  const text = typeof value === 'string' ? value : value == null ? '' : String(value);
  return !NON_BLANK.test(text);
}
