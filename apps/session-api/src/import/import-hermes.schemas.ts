import { z } from 'zod';

const file = z.string().min(1).max(512);

/**
 * `POST /v1/import/hermes`: the files `chronicle import-hermes` reads, inline. A sidecar's content is its
 * text (or the parsed object), a journal's its JSONL text, the state.db its bytes in base64. What is inside a
 * file is checked per item and reported; the body's own shape is checked here, every bad field named.
 */
export const importHermesBody = z.strictObject({
  sessions: z.array(z.strictObject({ file, content: z.union([z.string(), z.record(z.string(), z.unknown())]) })).min(1).max(10_000),
  stateDb: z.strictObject({ contentBase64: z.string().min(1).regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64') }).optional(),
  journals: z.array(z.strictObject({ file, content: z.string() })).max(100_000).optional(),
  dryRun: z.boolean().optional(),
});

export type ImportHermesBody = z.infer<typeof importHermesBody>;
