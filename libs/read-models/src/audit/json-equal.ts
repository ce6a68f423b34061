/**
 * Whether two values are equal as JSON carries them (as `deepDiff` compares: `undefined` properties absent,
 * key order free, `-0` equal to `0`, an `undefined` or non-finite array item equal to null), without building
 * paths: the audit's common case is equality, and `deepDiff` runs only when this says no.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!jsonEqual(item(a[i]), item(b[i]))) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const key in x) {
    if (!Object.hasOwn(x, key) || x[key] === undefined) continue;
    defined += 1;
    if (!jsonEqual(x[key], y[key])) return false;
  }
  for (const key in y) if (Object.hasOwn(y, key) && y[key] !== undefined) defined -= 1;
  return defined === 0;
}

const item = (value: unknown): unknown =>
  value === undefined || (typeof value === 'number' && !Number.isFinite(value)) ? null : value;
