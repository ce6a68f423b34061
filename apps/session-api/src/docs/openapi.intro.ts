/**
 * The document's introduction (Markdown, as Swagger UI renders it). `<key>` and the like stay inside code
 * spans: bare, the UI would take them for HTML and show nothing.
 */
export const INTRO = [
  'Event-sourced session service for AI-agent chat products: every input is an immutable domain event in one stream per session;',
  'transcripts, context, tool cards and recovery markers are folded from the events.',
  '',
  '**Auth.** Every `/v1` route needs `Authorization: Bearer <key>`: an opaque API key from `CHRONICLE_API_KEYS`, with a scope,',
  '`ingest` (workers, gateway), `read` (clients) or `admin` (dashboard, audits, recovery); `admin` implies the other two.',
  'Each operation names the scope it needs (also as `x-required-scope`). No key: 401; wrong scope: 403; over the rate limit: 429.',
  '',
  '**Errors** are RFC 9457 problem details (`application/problem+json`, the `Problem` schema) with a stable `code`; a refused request stores nothing.',
  '',
  '**Writes** answer `WriteResult` `{ sessionId, version, appended, duplicate }` and are safe to retry: a repeat (same `runId`, `(runId, seq)`,',
  '`rowId`, or `Idempotency-Key`) appends nothing and answers `duplicate: true`. `expectedVersion` in the body (409) or `If-Match: "n"` (412)',
  "makes a write conditional. A read that follows a write's answer sees that write.",
  '',
  'Times are epoch seconds (floats allowed); ids match `[A-Za-z0-9_.:-]{1,128}`.',
].join('\n');

/** Tag descriptions; each controller names its tag with `@ApiTags`. */
export const TAGS: Readonly<Record<string, string>> = {
  ingestion: 'Writes: each becomes domain events, decided and appended atomically (scope `ingest`)',
  sessions: 'Reads folded from the events up to the current version (scope `read`)',
  live: 'Server-Sent Events of a session (scope `read`)',
  liveness: 'Ephemeral worker registry facts, not events (scope `ingest`)',
  recovery: 'The recovery supervisor (scope `admin`)',
  audit: 'Replay audits and projection rebuilds (scope `admin`)',
  import: 'Imports of existing hermes-webui data (scope `admin`)',
  access: 'The key a request carries',
  operations: 'Health and metrics (no key)',
};
