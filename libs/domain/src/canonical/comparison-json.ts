/**
 * A comparison key for any value: JSON with object keys sorted at every depth (code unit order), `undefined`
 * members left out, what JSON cannot carry written as JSON.stringify writes it (NaN → null). For the merge's
 * and the journal's equality checks, which must never throw on odd data; the bytes that are hashed and
 * stored come from the strict `canonicalJson`. For plain JSON data both give the same text.
 */
export function comparisonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => comparisonJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${comparisonJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
