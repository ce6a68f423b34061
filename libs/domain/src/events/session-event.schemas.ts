import { z } from 'zod';
import type { SessionEventData, SessionEventType } from './session.events.js';
import {
  epochSecondsSchema,
  idSchema,
  interruptionCauseSchema,
  journalEventSchema,
  messageRowSchema,
  stateRowSchema,
} from './row.schemas.js';
import { freeJsonArraySchema, freeJsonRecordSchema } from './free-json.schema.js';

/** One schema per event data. Optional request fields get their stored default here, so a parsed body is the event data. */
const evidenceSchema = freeJsonRecordSchema;

export const sessionStartedDataSchema = z.object({
  sessionId: idSchema,
  title: z.string().nullable().default(null),
  parentSessionId: idSchema.nullable().default(null),
  createdAt: epochSecondsSchema,
}) satisfies z.ZodType<SessionEventData<'SessionStarted'>>;

export const messagesRecordedDataSchema = z.object({
  rows: z.array(messageRowSchema),
}) satisfies z.ZodType<SessionEventData<'MessagesRecorded'>>;

export const userMessageSubmittedDataSchema = z.object({
  runId: idSchema,
  text: z.string(),
  attachments: freeJsonArraySchema.default([]),
  source: z.string().nullable().default(null),
  submittedAt: epochSecondsSchema,
}) satisfies z.ZodType<SessionEventData<'UserMessageSubmitted'>>;

export const turnSettledDataSchema = z.object({
  runId: idSchema,
  rows: z.array(messageRowSchema),
  settledAt: epochSecondsSchema,
}) satisfies z.ZodType<SessionEventData<'TurnSettled'>>;

export const journalEventRecordedDataSchema = journalEventSchema.extend({
  runId: idSchema,
}) satisfies z.ZodType<SessionEventData<'JournalEventRecorded'>>;

export const stateRowsObservedDataSchema = z.object({
  rows: z.array(stateRowSchema),
  observedAt: epochSecondsSchema,
}) satisfies z.ZodType<SessionEventData<'StateRowsObserved'>>;

export const truncationReasonSchema = z.enum(['edit', 'retry', 'undo', 'clear', 'compress']);

export const transcriptTruncatedDataSchema = z.object({
  keepCount: z.number().int().nonnegative(),
  reason: truncationReasonSchema,
  at: epochSecondsSchema,
}) satisfies z.ZodType<SessionEventData<'TranscriptTruncated'>>;

export const sessionCompressedDataSchema = z.object({
  childSessionId: idSchema,
  at: epochSecondsSchema,
}) satisfies z.ZodType<SessionEventData<'SessionCompressed'>>;

export const turnInterruptedDataSchema = z.object({
  runId: idSchema.nullable(),
  cause: interruptionCauseSchema,
  detectedAt: epochSecondsSchema,
  evidence: evidenceSchema,
}) satisfies z.ZodType<SessionEventData<'TurnInterrupted'>>;

export const turnRecoveredFromAgentStoreDataSchema = z.object({
  runId: idSchema,
  detectedAt: epochSecondsSchema,
  // Schema 2: always in the event (schema 1 left it out when the decision had none: event-schema.upcasters.ts).
  evidence: evidenceSchema.default({}),
}) satisfies z.ZodType<SessionEventData<'TurnRecoveredFromAgentStore'>>;

export const journalRecoveryAbandonedDataSchema = z.object({
  runId: idSchema,
  at: epochSecondsSchema,
  reason: z.string().min(1),
}) satisfies z.ZodType<SessionEventData<'JournalRecoveryAbandoned'>>;

export const sessionErasedDataSchema = z.object({
  at: epochSecondsSchema,
  reason: z.string().min(1).max(1000),
  requestedBy: z.string().min(1),
  dataKeyId: z.string().nullable(),
  droppedContent: z.array(z.tuple([z.number().int().positive(), z.number().int().positive()])).optional(),
  lastActivityAt: epochSecondsSchema.nullable().optional(),
}) satisfies z.ZodType<SessionEventData<'SessionErased'>>;

/** Event type → the schema of its data; the OpenAPI document and the event store read the catalogue from here. */
export const sessionEventSchemas = {
  SessionStarted: sessionStartedDataSchema,
  MessagesRecorded: messagesRecordedDataSchema,
  UserMessageSubmitted: userMessageSubmittedDataSchema,
  TurnSettled: turnSettledDataSchema,
  JournalEventRecorded: journalEventRecordedDataSchema,
  StateRowsObserved: stateRowsObservedDataSchema,
  TranscriptTruncated: transcriptTruncatedDataSchema,
  SessionCompressed: sessionCompressedDataSchema,
  TurnInterrupted: turnInterruptedDataSchema,
  TurnRecoveredFromAgentStore: turnRecoveredFromAgentStoreDataSchema,
  JournalRecoveryAbandoned: journalRecoveryAbandonedDataSchema,
  SessionErased: sessionErasedDataSchema,
} as const satisfies { readonly [Type in SessionEventType]: z.ZodType<SessionEventData<Type>> };
