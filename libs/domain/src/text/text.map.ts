/**
 * V8 hashes at most this many characters of a string: a longer one is hashed by its length alone, so
 * a plain Map keyed by many long texts of one length (tool outputs cut at a fixed size) chains them
 * all in one bucket and every lookup compares against each of them: quadratic, and worse when the
 * texts share a long prefix. Texts above it are filed under a digest of their whole content instead.
 */
export const V8_MAX_HASHED_LENGTH = 16_383;

/**
 * Two 32-bit multiplicative hashes of every UTF-16 unit, plus the length. Collisions only cost a
 * compare. The last digest is kept: a lookup and the insert after it, or two keys with one text as
 * head (the merge and dedup keys), ask for the same text in a row. It is a function of the string alone.
 */
let lastText: string | null = null;
let lastDigest = '';

function digestOf(text: string): string {
  if (text === lastText) return lastDigest;
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x5bd1e995);
    b ^= b >>> 15;
  }
  lastText = text;
  lastDigest = `${text.length}:${a >>> 0}:${b >>> 0}`;
  return lastDigest;
}

interface LongEntry<V> {
  readonly text: string;
  value: V;
}

/**
 * A Map keyed by text whose operations never depend on the other keys: texts V8 hashes go into a
 * plain Map; longer ones into chains under their digest (one pass over the text), told apart by a
 * full compare.
 */
export class TextMap<V> {
  private readonly hashed = new Map<string, V>();
  private long: Map<string, LongEntry<V>[]> | null = null;
  private longCount = 0;

  get size(): number {
    return this.hashed.size + this.longCount;
  }

  get(text: string): V | undefined {
    if (text.length <= V8_MAX_HASHED_LENGTH) return this.hashed.get(text);
    return this.long?.get(digestOf(text))?.find((entry) => entry.text === text)?.value;
  }

  /** Membership; the maps of the merge never hold `undefined` as a value. */
  has(text: string): boolean {
    return this.get(text) !== undefined;
  }

  set(text: string, value: V): void {
    if (text.length <= V8_MAX_HASHED_LENGTH) {
      this.hashed.set(text, value);
      return;
    }
    this.long ??= new Map();
    const digest = digestOf(text);
    const chain = this.long.get(digest);
    const entry = chain?.find((known) => known.text === text);
    if (entry !== undefined) {
      entry.value = value;
      return;
    }
    if (chain === undefined) this.long.set(digest, [{ text, value }]);
    else chain.push({ text, value });
    this.longCount += 1;
  }
}
