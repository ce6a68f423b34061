import { z } from 'zod';
import type { JournalEvent, Marker, MessageRow, ToolCard } from '../messages/message-row.js';
import { ID_PATTERN } from './session-stream.js';
import { boundedJson, freeJsonArraySchema, freeJsonRecordSchema } from './free-json.schema.js';

/**
 * Schemas of the row shapes of the HTTP contract. They validate request bodies, type the stored events and
 * generate the OpenAPI document, so they are the single source of what a row may hold. Unknown row fields are
 * stripped (the contract lists every field; new ones are added here first). A `meta` id names the shape in the
 * OpenAPI document (one component per shape).
 */
export const idSchema = z.string().regex(ID_PATTERN, 'must match [A-Za-z0-9_.:-]{1,128}');

/** Epoch seconds; floats allowed (agents stamp sub-second times). zod 4 numbers reject NaN and ±Infinity. */
export const epochSecondsSchema = z.number().nonnegative();

export const roleSchema = z.enum(['user', 'assistant', 'tool', 'system']);

export const interruptionCauseSchema = z.enum([
  'process_restart',
  'stream_run_split_brain',
  'lost_worker_bookkeeping',
  'unknown',
]);

/** A content part: text and image parts are checked, any other `type` is kept as the client sent it. */
export const contentPartSchema = boundedJson(z.looseObject({ type: z.string().min(1) }).superRefine((part, ctx) => {
  if (part.type === 'text' && typeof part['text'] !== 'string') {
    ctx.addIssue({ code: 'custom', path: ['text'], message: 'a text part needs a string text' });
  }
  if (part.type === 'image_url') {
    const image = part['imageUrl'];
    const url = typeof image === 'object' && image !== null ? (image as { url?: unknown }).url : undefined;
    if (typeof url !== 'string') {
      ctx.addIssue({ code: 'custom', path: ['imageUrl', 'url'], message: 'an image_url part needs imageUrl.url' });
    }
  }
}));

export const messageContentSchema = z.union([z.string(), z.array(contentPartSchema)]);

export const messageRowSchema = z.object({
  role: roleSchema,
  content: messageContentSchema.nullable().optional(),
  timestamp: z.number().nullable().optional(),
  id: z.string().nullable().optional(),
  attachments: freeJsonArraySchema.optional(),
  toolCalls: freeJsonArraySchema.optional(),
  toolCallId: z.string().nullable().optional(),
  toolName: z.string().nullable().optional(),
  reasoning: z.string().nullable().optional(),
  apiContent: z.string().nullable().optional(),
  rowId: z.number().int().nonnegative().nullable().optional(),
  partial: z.boolean().optional(),
  partialToolCalls: freeJsonArraySchema.optional(),
  error: z.boolean().optional(),
  type: z.string().optional(),
  interruptionCause: interruptionCauseSchema.optional(),
  recovered: z.boolean().optional(),
  source: z.string().nullable().optional(),
  recoveredFromRunJournal: z.boolean().optional(),
  recoveredRunId: z.string().optional(),
  recoveredEventId: z.string().optional(),
  meta: freeJsonRecordSchema.optional(),
}).meta({ id: 'MessageRow', description: 'A display or context row; every field but `role` is optional.' }) satisfies z.ZodType<MessageRow>;

export const stateRowSchema = messageRowSchema
  .extend({
    rowId: z.number().int().nonnegative(),
    active: z.boolean().default(true),
  })
  .meta({ id: 'StateRow', description: "A row read from the agent's own store: rowId is its durable order; active false = compacted away." });

export const journalEventSchema = z.object({
  seq: z.number().int().min(1),
  event: z.string().min(1),
  payload: freeJsonRecordSchema,
  createdAt: z.number(),
}).meta({ id: 'JournalEvent', description: "One event of a run journal; payload keeps the worker journal's own snake_case keys, verbatim." }) satisfies z.ZodType<JournalEvent>;

export const toolCardSchema = z.object({
  name: z.string(),
  preview: z.string(),
  args: z.record(z.string(), z.string()),
  done: z.boolean(),
  isError: z.boolean(),
  duration: z.number().nullable(),
  assistantMessageIndex: z.number().int().nullable(),
  recoveredFromRunJournal: z.boolean(),
  recoveredRunId: z.string().nullable(),
}).meta({ id: 'ToolCard' }) satisfies z.ZodType<ToolCard>;

export const markerStatusSchema = z.enum(['pending_journal', 'recovered', 'no_output', 'neutral', 'superseded']);

/** A "Response interrupted" marker, derived from a recovery decision (never stored). */
export const markerSchema = z.object({
  runId: z.string(),
  cause: interruptionCauseSchema,
  status: markerStatusSchema,
  content: z.string(),
  timestamp: z.number(),
  messageIndex: z.number().int().nullable().describe('The marker row in the display transcript; null for a superseded marker.'),
}).meta({ id: 'Marker' }) satisfies z.ZodType<Marker>;
