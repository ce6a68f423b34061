import { z } from 'zod';

/**
 * Free-form JSON (journal `payload`, row `meta`, `attachments`, `toolCalls`, extra keys of a content part,
 * decision evidence) is kept as the producer wrote it, every key included: a `__proto__` or `constructor` key
 * (a tool result or a user's JSON can hold one) is data like any other. One bound is shared by every entry
 * point (HTTP, CLI import, replays), checked without recursion so no input can exhaust the stack:
 * nesting: at most MAX_FREE_JSON_DEPTH levels of objects and arrays inside the field (the field's own object or
 * array is the first level). Stored data is folded, hashed and served; 10,000 levels of it crashed those.
 */
export const MAX_FREE_JSON_DEPTH = 64;

/** The nesting bound a free-form value breaks, named, or null when it keeps it. */
export function freeJsonProblem(value: unknown): string | null {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > MAX_FREE_JSON_DEPTH) return `nested deeper than ${MAX_FREE_JSON_DEPTH} levels (the limit for free-form JSON)`;
    for (const child of Object.values(next.value)) pending.push({ value: child, depth: next.depth + 1 });
  }
  return null;
}

/**
 * A schema that checks its value against the nesting bound and then against `inner`, and answers the value as it
 * came, never `inner`'s copy: zod copies records and loose objects key by key and leaves a `__proto__` key out of
 * the copy (assigning it would set the copy's prototype instead), so the key would vanish from what is stored.
 * `inner` must be a check only (no defaults or transforms): its output is the input.
 */
export function boundedJson<S extends z.ZodType>(inner: S) {
  return z.custom<z.output<S>>().superRefine((value, ctx) => {
    const problem = freeJsonProblem(value);
    if (problem) return ctx.addIssue({ code: 'custom', message: problem });
    const checked = inner.safeParse(value);
    if (!checked.success) for (const issue of checked.error.issues) ctx.addIssue({ ...issue });
  });
}

/** A free-form JSON object (`payload`, `meta`, evidence). */
export const freeJsonRecordSchema = boundedJson(z.record(z.string(), z.unknown())).meta({ type: 'object', additionalProperties: {} });

/** A free-form JSON array (`attachments`, `toolCalls`, `partialToolCalls`). */
export const freeJsonArraySchema = boundedJson(z.array(z.unknown())).meta({ type: 'array', items: {} });
