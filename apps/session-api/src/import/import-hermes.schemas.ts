import { z } from 'zod';
import type { HermesImportReport } from '#hermes-import';

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

const count = z.number().int().nonnegative();

/** What an import did (or would do, with `dryRun`): the report `chronicle import-hermes --json` prints. */
export const importReportAnswer = z
  .object({
    dryRun: z.boolean(),
    sessions: z.object({
      read: count.describe('Sidecar files read as sessions.'),
      imported: count.describe('Sessions that got (or would get) new events.'),
      unchanged: count.describe('Sessions whose every event was already stored.'),
      refused: count.describe('Sessions refused whole: nothing was written for them.'),
    }),
    events: z.object({ total: count, byType: z.record(z.string(), count).describe('Events by domain event type.') }),
    skipped: z.array(z.object({ item: z.string(), reason: z.string() })).describe('Every input (file, row, journal line) left out, and why.'),
  })
  .meta({
    id: 'HermesImportReport',
    example: {
      dryRun: false,
      sessions: { read: 3, imported: 2, unchanged: 0, refused: 1 },
      events: { total: 5, byType: { MessagesRecorded: 2, SessionStarted: 2, StateRowsObserved: 1 } },
      skipped: [{ item: 'broken.json', reason: 'not JSON' }],
    },
  }) satisfies z.ZodType<HermesImportReport>;
