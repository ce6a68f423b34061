/**
 * Canonical JSON: the byte form that hashes and golden files compare. Object keys sorted (UTF-16 code unit
 * order, what `Array.prototype.sort` gives) at every level, `undefined` properties dropped, array order kept,
 * numbers as `JSON.stringify` prints them with `-0` written `0`. Values JSON cannot carry faithfully (NaN,
 * ±Infinity, bigint, functions, symbols, a top-level or array `undefined`) are refused rather than coerced, so
 * two different values never share a hash.
 */
export class CanonicalJsonError extends Error {
  override readonly name = 'CanonicalJsonError';
}

export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out, '$');
  return out.join('');
}

function write(value: unknown, out: string[], path: string): void {
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`non-finite number at ${path}`);
      out.push(Object.is(value, -0) ? '0' : JSON.stringify(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'object':
      if (value === null) out.push('null');
      else if (Array.isArray(value)) writeArray(value, out, path);
      else writeObject(value as Record<string, unknown>, out, path);
      return;
    default:
      throw new CanonicalJsonError(`${typeof value} is not JSON at ${path}`);
  }
}

function writeArray(items: readonly unknown[], out: string[], path: string): void {
  out.push('[');
  for (let i = 0; i < items.length; i += 1) {
    if (i > 0) out.push(',');
    write(items[i], out, `${path}[${i}]`);
  }
  out.push(']');
}

function writeObject(object: Record<string, unknown>, out: string[], path: string): void {
  const keys = Object.keys(object).sort();
  out.push('{');
  let first = true;
  for (const key of keys) {
    const item = object[key];
    if (item === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    write(item, out, `${path}.${key}`);
  }
  out.push('}');
}
