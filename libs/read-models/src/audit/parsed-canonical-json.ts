import { canonicalJson } from '#domain';

const FAST_DEPTH = 256;

/**
 * `canonicalJson` of a value that came out of `JSON.parse` (strings, finite numbers, booleans, null, arrays,
 * plain objects; nothing JSON cannot carry), written by string concatenation: the audit hashes every event of the
 * store, and this walk costs about half of the general one. Anything deeper than 256 levels goes to
 * `canonicalJson` itself; the unit spec holds the two equal on arbitrary JSON.
 */
export function parsedCanonicalJson(value: unknown): string {
  const out = write(value, 0);
  return out ?? canonicalJson(value);
}

function write(value: unknown, depth: number): string | null {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return value === 0 ? '0' : String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null) return 'null';
  if (typeof value !== 'object' || depth >= FAST_DEPTH) return null;
  if (Array.isArray(value)) {
    let s = '[';
    for (let i = 0; i < value.length; i += 1) {
      const item = write(value[i], depth + 1);
      if (item === null) return null;
      s += i === 0 ? item : `,${item}`;
    }
    return `${s}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length > 1) keys.sort();
  let s = '{';
  let first = true;
  for (const key of keys) {
    const v = object[key];
    if (v === undefined) continue;
    const item = write(v, depth + 1);
    if (item === null) return null;
    s += `${first ? '' : ','}${JSON.stringify(key)}:${item}`;
    first = false;
  }
  return `${s}}`;
}
