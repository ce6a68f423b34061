import { z } from 'zod';

export type Json = Record<string, unknown>;

const DEFINITIONS = '#/definitions/';
const COMPONENTS = '#/components/schemas/';

/** `$ref`s into zod's `definitions` → into the document's `components.schemas` (the same names). */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' && inner.startsWith(DEFINITIONS) ? `${COMPONENTS}${inner.slice(DEFINITIONS.length)}` : rewriteRefs(inner),
    ]),
  );
}

/** `z.number().int()` says "a safe integer" with ±(2^53 − 1) bounds on every count: true, and noise to a reader. */
function withoutSafeIntegerBounds({ jsonSchema }: { jsonSchema: Json }): void {
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
}

/**
 * zod schemas → OpenAPI 3.0 schema objects. A schema named with `.meta({ id })` (MessageRow, WriteResult, …)
 * becomes one entry of `components.schemas` that every use refers to, so a generated client gets one type per
 * shape. Everything is converted as input (`io: 'input'`): what a request may send, and for an answer what a
 * client may receive. That keeps answer objects open (no `additionalProperties: false`), as the contract allows
 * new optional fields.
 */
export class SchemaComponents {
  readonly schemas: Record<string, Json> = {};

  /** The schema object for `schema`: a `$ref` when it is named, else inline (its named parts as `$ref`s). */
  of(schema: z.ZodType): Json {
    const { definitions, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any', override: withoutSafeIntegerBounds }) as Json & {
      definitions?: Record<string, Json>;
    };
    for (const [name, definition] of Object.entries(definitions ?? {})) this.put(name, rewriteRefs(definition) as Json);
    return rewriteRefs(json) as Json;
  }

  /** Adds a component under `name` (event data schemas, which are not named in zod). */
  add(name: string, schema: z.ZodType): void {
    this.put(name, this.of(schema));
  }

  private put(name: string, json: Json): void {
    const known = this.schemas[name];
    // Two shapes under one name would make one of them lie; zod ids are unique, so this is a wiring mistake.
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(json)) throw new Error(`Two different schemas are named ${name} in the OpenAPI document.`);
    this.schemas[name] = json;
  }
}
