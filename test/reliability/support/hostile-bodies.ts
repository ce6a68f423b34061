import fc from 'fast-check';

/** A raw request body with the media type it is sent as. */
export interface RawBody {
  readonly contentType: string;
  readonly text: string;
}

const SQL = ["'; DROP TABLE events; --", "1' OR '1'='1", 'SELECT pg_sleep(10)', '$$; COMMIT; $$', '\\x00'];
const nasty = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\u0000', '\ud800', 'a\udfffb', '\u202e', '\ufeff', '<script>alert(1)</script>', ...SQL),
  fc.string({ minLength: 100_000, maxLength: 100_001 }).map((s) => s.slice(0, 1) + 'x'.repeat(100_000)),
);
const deep = fc.integer({ min: 65, max: 12_000 }).map((depth) => `${'['.repeat(depth)}1${']'.repeat(depth)}`);
const protoKeys = fc.constantFrom('{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '{"a":[{"__proto__":null}]}');

/** JSON text built from a fragment in place of a field's value, so the hostile part sits where the schema looks. */
const inField = (fields: readonly string[]) =>
  fc.tuple(fc.constantFrom(...fields), fc.oneof(nasty.map((s) => JSON.stringify(s)), deep, protoKeys, fc.jsonValue().map((v) => JSON.stringify(v))));

/**
 * Bodies no ingestion route may store: wrong types, huge strings, nesting past the limit, lone surrogates and
 * NUL, prototype-pollution keys where a body's own fields are (an unknown field there) or in place of a field's
 * value (the wrong type), SQL fragments, invalid JSON, the wrong media type; each is refused with a 4xx, never a
 * 5xx. `fields` are the route's own fields (hostile values are put into them).
 */
export function hostileBody(fields: readonly string[]): fc.Arbitrary<RawBody> {
  const json = (text: string): RawBody => ({ contentType: 'application/json', text });
  return fc.oneof(
    fc.anything().map((value) => json(JSON.stringify(value) ?? 'null')),
    inField(fields).map(([field, value]) => json(`{"${field}":${value}}`)),
    deep.map(json),
    protoKeys.map(json),
    fc.constantFrom('{', '{"rows":[', '{"a":1,}', 'nul', '\u0000', '{"events":[{"seq":1e999}]}').map(json),
    fc.record({ contentType: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml'), text: fc.string() }),
  );
}
