import { ws } from '../text/whitespace.js';

export { withTextMemo, ws } from '../text/whitespace.js';

/**
 * Text normalisations of reference §2.1: ws(), the workspace-prefix strip applied to agent-store user
 * rows only, and the "loose" token form used by fuzzy visible matching.
 */

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
