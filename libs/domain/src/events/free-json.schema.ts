import { z } from 'zod';

/**
 * Free-form JSON (journal `payload`, row `meta`, `attachments`, `toolCalls`, extra keys of a content part,
 * decision evidence) is kept as the producer wrote it, within two bounds that every entry point shares
 * (HTTP, CLI import, replays), checked without recursion so no input can exhaust the stack:
 * - nesting: at most MAX_FREE_JSON_DEPTH levels of objects and arrays inside the field (the field's own object
 *   or array is the first level). Stored data is folded, hashed and served; 10,000 levels of it crashed those.
 * - prototype keys: a `__proto__` key, or a `constructor` object holding `prototype`, is refused, never dropped.
 *   Copying such a key into a plain object would set the copy's prototype instead (the key vanished from a
 *   journal payload that the contract stores verbatim), and the HTTP edge refuses the same keys already.
 */
export const MAX_FREE_JSON_DEPTH = 64;

interface Problem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/**
 * The first bound a free-form value breaks, with the path inside the field; null when it keeps both. The CLI
 * import checks whole event data with `maxDepth` Infinity (prototype keys only).
 */
export function freeJsonProblem(value: unknown, maxDepth = MAX_FREE_JSON_DEPTH): Problem | null {
  const pending: { value: unknown; depth: number; path: readonly (string | number)[] }[] = [{ value, depth: 1, path: [] }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > maxDepth) {
      return { path: [], message: `nested deeper than ${maxDepth} levels (the limit for free-form JSON)` };
    }
    const node = next.value as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      const child = node[key];
      const path = [...next.path, Array.isArray(node) ? Number(key) : key];
      if (key === '__proto__' || (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'))) {
        return { path: key === '__proto__' ? path : [...path, 'prototype'], message: 'prototype keys (__proto__, constructor.prototype) are refused' };
      }
      pending.push({ value: child, depth: next.depth + 1, path });
    }
  }
  return null;
}

const keepsBounds = (value: unknown, ctx: z.RefinementCtx) => {
  const problem = freeJsonProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
};

/**
 * A schema whose value is checked against both bounds before `inner` parses it: zod copies records and loose
 * objects key by key, which would drop a `__proto__` key before any refinement of the copy could see it.
 */
export function boundedJson<S extends z.ZodType>(inner: S) {
  return z.unknown().superRefine(keepsBounds).pipe(inner);
}

/** A free-form JSON object (`payload`, `meta`, evidence). */
export const freeJsonRecordSchema = boundedJson(z.record(z.string(), z.unknown())).meta({ type: 'object', additionalProperties: {} });

/** A free-form JSON array (`attachments`, `toolCalls`, `partialToolCalls`). */
export const freeJsonArraySchema = boundedJson(z.array(z.unknown())).meta({ type: 'array', items: {} });
