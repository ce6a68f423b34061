import { z } from 'zod';
import {
  isPlainObject,
  MAX_JOURNAL_EVENTS,
  messagesRecordedDataSchema,
  onlyKeys,
  plainJournalEvent,
  plainJournalEvents,
  recordJournalEventsSchema,
  sessionCompressedDataSchema,
  stateRowsObservedDataSchema,
  transcriptTruncatedDataSchema,
  turnSettledDataSchema,
  userMessageSubmittedDataSchema,
} from '#domain';
import type { WriteResult } from '#session-commands';
import type { RequestHeader } from '../docs/api-route.decorator.js';

/**
 * Request bodies = the event data schemas of libs/domain (one schema validates, types and documents),
 * minus what the path carries, plus the optional `expectedVersion` precondition. Unknown fields are refused
 * so a misspelt field is named instead of silently dropped.
 */
const expectedVersion = z.number().int().nonnegative().optional();
const MAX_ROWS = 1000;

export const messagesBody = messagesRecordedDataSchema
  .extend({ rows: messagesRecordedDataSchema.shape.rows.min(1).max(MAX_ROWS), expectedVersion })
  .strict();

export const submissionBody = userMessageSubmittedDataSchema.extend({ expectedVersion }).strict();

export const settleBody = turnSettledDataSchema
  .omit({ runId: true })
  .extend({ rows: turnSettledDataSchema.shape.rows.max(MAX_ROWS), expectedVersion })
  .strict();

/** The journal events a worker may send `durability: "relaxed"`: the streamed text, never a terminal event. */
export const RELAXABLE_JOURNAL_EVENTS: readonly string[] = ['token', 'interim_assistant'];

const journalEventBody = recordJournalEventsSchema.shape.events.element.extend({
  durability: z
    .enum(['durable', 'relaxed'])
    .optional()
    .describe(
      '`relaxed` (token and interim_assistant events only): acknowledged before its commit is flushed to disk, unless another event of the request is durable. Default durable.',
    ),
});

export const journalBody = recordJournalEventsSchema
  .omit({ runId: true })
  .extend({ events: z.array(journalEventBody).min(1).max(MAX_JOURNAL_EVENTS), expectedVersion })
  .strict()
  .superRefine((body, context) => {
    body.events.forEach((event, index) => {
      if (event.durability === 'relaxed' && !RELAXABLE_JOURNAL_EVENTS.includes(event.event)) {
        context.addIssue({
          code: 'custom',
          path: ['events', index, 'durability'],
          message: `only ${RELAXABLE_JOURNAL_EVENTS.join(' and ')} events may be relaxed`,
        });
      }
    });
  });

type JournalBody = z.infer<typeof journalBody>;
type JournalEventBody = JournalBody['events'][number];

const JOURNAL_BODY_KEYS = ['events', 'expectedVersion'];

/**
 * `journalBody.parse`'s answer for the plain case, without zod (domain `plainJournalEvent`: ~10 % of the service's
 * CPU on 100-event POSTs went to the two parses), or null: the caller then parses with the schema, which names
 * every bad field. `ingestion.schemas.property.unit.spec.ts` holds it to the schema on generated bodies.
 */
export function plainJournalBody(value: unknown): JournalBody | null {
  if (!isPlainObject(value)) return null;
  const { events, expectedVersion: version } = value;
  if (!onlyKeys(value, JOURNAL_BODY_KEYS)) return null;
  const parsed = plainJournalEvents(events, plainJournalEventBody) as JournalEventBody[] | null;
  if (parsed === null) return null;
  if (version === undefined) return { events: parsed };
  return typeof version === 'number' && Number.isSafeInteger(version) && version >= 0 ? { events: parsed, expectedVersion: version } : null;
}

function plainJournalEventBody(value: unknown): JournalEventBody | null {
  const durability = isPlainObject(value) ? value['durability'] : undefined;
  if (durability === undefined) return plainJournalEvent(value);
  const event = plainJournalEvent(value, 5);
  if (event === null) return null;
  if (durability === 'durable' || (durability === 'relaxed' && RELAXABLE_JOURNAL_EVENTS.includes(event.event))) return { ...event, durability };
  return null;
}

/** A journal body's durability: relaxed when every event asks for it. */
export const journalDurability = (body: z.infer<typeof journalBody>): 'durable' | 'relaxed' =>
  body.events.every((event) => event.durability === 'relaxed') ? 'relaxed' : 'durable';

/** A journal body's events without their transport field: the command's data. */
export const journalEvents = (body: z.infer<typeof journalBody>): z.infer<typeof recordJournalEventsSchema>['events'] =>
  body.events.map(({ durability: _transport, ...event }) => event);

export const stateRowsBody = stateRowsObservedDataSchema
  .extend({ rows: stateRowsObservedDataSchema.shape.rows.min(1).max(5000), expectedVersion })
  .strict();

export const truncateBody = transcriptTruncatedDataSchema.extend({ expectedVersion }).strict();

export const compressBody = sessionCompressedDataSchema.extend({ expectedVersion }).strict();

/** Drops the precondition from a parsed body: what is left is the command data. */
export function withoutPrecondition<T extends { expectedVersion?: number }>(body: T): Omit<T, 'expectedVersion'> {
  const { expectedVersion: _ignored, ...data } = body;
  return data;
}

/** What every write answers (http-api "Concurrency"). */
export const writeResultAnswer = z
  .object({
    sessionId: z.string(),
    version: z.number().int().nonnegative().describe("The session stream's version after the write."),
    appended: z.number().int().nonnegative().describe('Events the write appended: 0 for a duplicate.'),
    duplicate: z.boolean().describe('A repeat of a write already stored (same natural key or Idempotency-Key): nothing appended.'),
    durable: z
      .literal(false)
      .optional()
      .describe('Present (false) when the events were committed relaxed: acknowledged before the commit was flushed to disk. Absent: flushed.'),
  })
  .meta({ id: 'WriteResult', example: { sessionId: 'demo', version: 3, appended: 1, duplicate: false } }) satisfies z.ZodType<WriteResult>;

/** `POST …/compress`: the parent's write result, plus the child session it started (or had started). */
export const compressAnswer = writeResultAnswer
  .extend({
    childSessionId: z.string(),
    childVersion: z.number().int().nonnegative().describe("The child stream's version after its SessionStarted."),
  })
  .meta({
    id: 'CompressResult',
    example: { sessionId: 'demo', version: 9, appended: 1, duplicate: false, childSessionId: 'demo-2', childVersion: 1 },
  });

export const IF_MATCH: RequestHeader = {
  name: 'If-Match',
  description: 'The stream version the write expects, as `"n"` (the alternative to `expectedVersion`): 412 PRECONDITION_FAILED when the stream moved on; both given and different is a 400.',
  schema: z.string().regex(/^\s*(?:W\/)?"?\d+"?\s*$/).meta({ example: '"12"' }),
};

export const IDEMPOTENCY_KEY: RequestHeader = {
  name: 'Idempotency-Key',
  description: 'Makes the write safe to retry where no natural key does: a repeat appends nothing and answers `duplicate: true`.',
  schema: z.string().regex(/^[\x21-\x7e]{1,200}$/).meta({ example: 'truncate-7f3a' }),
};
