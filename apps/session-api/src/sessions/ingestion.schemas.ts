import { z } from 'zod';
import {
  messagesRecordedDataSchema,
  recordJournalEventsSchema,
  sessionCompressedDataSchema,
  stateRowsObservedDataSchema,
  transcriptTruncatedDataSchema,
  turnSettledDataSchema,
  userMessageSubmittedDataSchema,
} from '#domain';

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

export const journalBody = recordJournalEventsSchema.omit({ runId: true }).extend({ expectedVersion }).strict();

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
