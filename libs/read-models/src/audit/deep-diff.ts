/** One place where a stored read model and its replay disagree. An absent side is `undefined` (omitted in JSON). */
export interface Difference {
  readonly path: string;
  readonly stored?: unknown;
  readonly replayed?: unknown;
}

export const DEFAULT_DIFFERENCE_LIMIT = 50;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

const keyPath = (base: string, key: string): string => {
  if (!IDENTIFIER.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base === '' ? key : `${base}.${key}`;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value of an own key; never what the prototype has under that name (`constructor`, `__proto__`). */
const own = (value: Record<string, unknown>, key: string): unknown => (Object.hasOwn(value, key) ? value[key] : undefined);

/** What JSON carries for a value inside an array: `undefined` and non-finite numbers become null. */
function asArrayItem(value: unknown): unknown {
  if (value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return null;
  return value;
}

/**
 * Compares two values as JSON carries them (a stored read model went through JSON, its replay did not):
 * `undefined` properties are absent, key order does not matter, `-0` equals `0`. Yields readable paths
 * (`view.display[3].content`, `snapshot@12.runs.buckets[…].journal[0]`), at most `limit` of them.
 */
export function deepDiff(
  stored: unknown,
  replayed: unknown,
  options: { readonly path?: string; readonly limit?: number } = {},
): Difference[] {
  const out: Difference[] = [];
  const limit = options.limit ?? DEFAULT_DIFFERENCE_LIMIT;
  if (limit > 0) walk(stored, replayed, options.path ?? '', out, limit);
  return out;
}

function walk(stored: unknown, replayed: unknown, path: string, out: Difference[], limit: number): void {
  if (out.length >= limit) return;
  if (Array.isArray(stored) && Array.isArray(replayed)) {
    const length = Math.max(stored.length, replayed.length);
    for (let i = 0; i < length && out.length < limit; i += 1) {
      const a = i < stored.length ? asArrayItem(stored[i]) : undefined;
      const b = i < replayed.length ? asArrayItem(replayed[i]) : undefined;
      walk(a, b, `${path}[${i}]`, out, limit);
    }
    return;
  }
  if (isObject(stored) && isObject(replayed)) {
    const keys = new Set([...Object.keys(stored), ...Object.keys(replayed)]);
    for (const key of [...keys].sort()) {
      if (out.length >= limit) return;
      walk(own(stored, key), own(replayed, key), keyPath(path, key), out, limit);
    }
    return;
  }
  if (stored === replayed) return;
  out.push({ path: path === '' ? '$' : path, stored, replayed });
}
