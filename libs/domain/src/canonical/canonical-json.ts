/**
 * Canonical JSON: the byte form that hashes and golden files compare. Object keys sorted (UTF-16 code unit
 * order, what `Array.prototype.sort` gives) at every level, `undefined` properties dropped, array order kept,
 * numbers as `JSON.stringify` prints them with `-0` written `0`. Values JSON cannot carry faithfully (NaN,
 * ±Infinity, bigint, functions, symbols, a top-level or array `undefined`, a cycle) are refused rather than
 * coerced, so two different values never share a hash.
 *
 * Values nested deeper than 256 levels are walked with an explicit stack, never recursing: any nesting depth the
 * heap holds is written (10,000 levels used to throw RangeError: Maximum call stack size exceeded), and the edge
 * bounds what is stored anyway. Shallower ones (all real ones) take a recursive walk that builds no paths.
 */
export class CanonicalJsonError extends Error {
  override readonly name = 'CanonicalJsonError';
}

/** An array or object being written: its items, the next one to write, and the path segment that reached it. */
interface Frame {
  readonly container: object;
  /** Sorted keys of an object; null for an array. */
  readonly keys: readonly string[] | null;
  readonly length: number;
  next: number;
  wroteItem: boolean;
  readonly segment: string;
}

/** Past this depth the fast walk hands over to the careful one (which has no depth limit). */
const FAST_DEPTH = 256;

export function canonicalJson(value: unknown): string {
  // The common case, recursively, by string concatenation and without paths; anything unusual (too deep, a
  // value JSON cannot carry, a cycle, which ends as too deep) is walked again by the careful walk, which
  // explains a refusal. The audit hashes every event of a store with this: it is about twice the speed.
  return writeFast(value, 0) ?? canonicalJsonCareful(value);
}

function writeFast(value: unknown, depth: number): string | null {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? (value === 0 ? '0' : String(value)) : null;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null) return 'null';
  if (typeof value !== 'object' || depth >= FAST_DEPTH) return null;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) {
      const item = writeFast(value[i], depth + 1);
      if (item === null) return null;
      out += i === 0 ? item : `,${item}`;
    }
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length > 1) sortKeys(keys);
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = object[key];
    if (item === undefined) continue;
    const written = writeFast(item, depth + 1);
    if (written === null) return null;
    out += `${first ? '' : ','}${keyJsonOf(key)}${written}`;
    first = false;
  }
  return `${out}}`;
}

/**
 * Keys into `sort()`'s order (UTF-16 code units), in place. Events and rows have a handful of keys: an insertion
 * sort allocates nothing and passes once over keys already in order, where `sort()` copies them into a work array
 * (a tenth of what a 100-event append allocated); past a few dozen keys `sort()` is the better sort.
 */
function sortKeys(keys: string[]): void {
  if (keys.length > 32) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i += 1) {
    const key = keys[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > key) {
      keys[j + 1] = keys[j];
      j -= 1;
    }
    keys[j + 1] = key;
  }
}

/**
 * `"key":` for a key, kept: events and rows repeat a few field names millions of times. Only short keys, and a
 * bounded number of them, since keys of free-form JSON are whatever clients send (a long one kept would be memory
 * no one could free); past either bound a key is written each time.
 */
const keyJson = new Map<string, string>();
const KEYS_KEPT = 4096;
const KEPT_KEY_LENGTH = 64;

function keyJsonOf(key: string): string {
  let json = keyJson.get(key);
  if (json === undefined) {
    json = `${JSON.stringify(key)}:`;
    if (key.length <= KEPT_KEY_LENGTH && keyJson.size < KEYS_KEPT) keyJson.set(key, json);
  }
  return json;
}

/** The careful walk: an explicit stack (any depth), cycle detection, and the path of what it refuses. */
function canonicalJsonCareful(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = new Set<object>();
  const pathTo = (segment: string) => `$${stack.map((frame) => frame.segment).join('')}${segment}`;

  const writeValue = (item: unknown, segment: string): void => {
    switch (typeof item) {
      case 'string':
        out.push(JSON.stringify(item));
        return;
      case 'number':
        if (!Number.isFinite(item)) throw new CanonicalJsonError(`non-finite number at ${pathTo(segment)}`);
        out.push(Object.is(item, -0) ? '0' : JSON.stringify(item));
        return;
      case 'boolean':
        out.push(item ? 'true' : 'false');
        return;
      case 'object': {
        if (item === null) return void out.push('null');
        if (open.has(item)) throw new CanonicalJsonError(`cycle at ${pathTo(segment)}`);
        const keys = Array.isArray(item) ? null : Object.keys(item).sort();
        out.push(keys ? '{' : '[');
        open.add(item);
        stack.push({ container: item, keys, length: keys ? keys.length : (item as unknown[]).length, next: 0, wroteItem: false, segment });
        return;
      }
      default:
        throw new CanonicalJsonError(`${typeof item} is not JSON at ${pathTo(segment)}`);
    }
  };

  writeValue(value, '');
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.keys === null) {
      if (frame.next >= frame.length) {
        closeFrame(stack, open, out, ']');
        continue;
      }
      const index = frame.next++;
      if (index > 0) out.push(',');
      writeValue((frame.container as unknown[])[index], `[${index}]`);
      continue;
    }
    const object = frame.container as Record<string, unknown>;
    while (frame.next < frame.length && object[frame.keys[frame.next]] === undefined) frame.next += 1;
    if (frame.next >= frame.length) {
      closeFrame(stack, open, out, '}');
      continue;
    }
    const key = frame.keys[frame.next++];
    if (frame.wroteItem) out.push(',');
    frame.wroteItem = true;
    out.push(JSON.stringify(key), ':');
    writeValue(object[key], `.${key}`);
  }
  return out.join('');
}

function closeFrame(stack: Frame[], open: Set<object>, out: string[], bracket: string): void {
  const frame = stack.pop()!;
  open.delete(frame.container);
  out.push(bracket);
}
