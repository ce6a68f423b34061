import { V8_MAX_HASHED_LENGTH } from './text.map.js';

/**
 * Text normalisations of reference §2.1: ws(), the workspace-prefix strip applied to agent-store user
 * rows only, and the "loose" token form used by fuzzy visible matching.
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

/** `[Workspace::v1: <path>]`, where the path may carry `\]` and `\\` escapes. */
const WORKSPACE_V1_PREFIX = /^\s*\[Workspace::v1: (?:\\[\s\S]|[^\]\\])*\]\s*/;
/** The legacy tag: no `]` inside the path. */
const WORKSPACE_LEGACY_PREFIX = /^\s*\[Workspace: [^\]]*\]\s*/;

/**
 * Removes ONE leading workspace tag (the v1 form first, the legacy form only if v1 did not match),
 * then trims and applies ws(). The sidecar side is never stripped: a user who typed the tag keeps it.
 */
export function stripWorkspacePrefix(text: string): string {
  const v1 = WORKSPACE_V1_PREFIX.exec(text);
  const rest = v1 ? text.slice(v1[0].length) : text.replace(WORKSPACE_LEGACY_PREFIX, '');
  return ws(rest);
}

/**
 * The "loose" form: case-folded word tokens joined by one space. Python's casefold() and `\w` are
 * approximated with toLowerCase() and a Unicode letter/number/underscore class (no locale allowed).
 */
const WORD_TOKENS = /[\p{L}\p{N}_]+/gu;

export function looseText(text: string): string {
  const tokens = text.toLowerCase().match(WORD_TOKENS);
  return tokens === null ? '' : tokens.join(' ');
}

/** Fuzzy limits (R18): above these, only exact visible keys match. */
export const FUZZY_MAX_KEYS = 1000;
export const FUZZY_MAX_CHARS = 200_000;

/**
 * Substring match on the ws texts, else on their loose forms. Both texts must be non-empty and at
 * most FUZZY_MAX_CHARS long. Judgment call: an empty loose form (punctuation-only text) never
 * matches, although Python's `"" in s` would be true.
 */
export function fuzzyTextsMatch(a: string, b: string, looseA: () => string, looseB: () => string): boolean {
  if (a.length === 0 || b.length === 0) return false;
  if (a.length > FUZZY_MAX_CHARS || b.length > FUZZY_MAX_CHARS) return false;
  if (a.includes(b) || b.includes(a)) return true;
  const la = looseA();
  const lb = looseB();
  return la.length > 0 && lb.length > 0 && (la.includes(lb) || lb.includes(la));
}
