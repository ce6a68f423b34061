/** Fuzzy visible matching of reference §2.1 (step 9's R18): the loose token form and the substring match. */

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
