import { z } from 'zod';
import { idSchema, journalEventSchema } from '../events/row.schemas.js';
import { MAX_JOURNAL_EVENTS } from '../events/journal-event.fast-parse.js';
import { journalRecoveryAbandonedDataSchema, messagesRecordedDataSchema, sessionCompressedDataSchema, sessionErasedDataSchema, sessionStartedDataSchema, stateRowsObservedDataSchema, transcriptTruncatedDataSchema, turnInterruptedDataSchema, turnRecoveredFromAgentStoreDataSchema, turnSettledDataSchema, userMessageSubmittedDataSchema } from '../events/session-event.schemas.js';
import type { SessionEvent } from '../events/session.events.js';

/** `POST /v1/sessions/{id}/runs/{runId}/journal`: 1..1000 events, one `JournalEventRecorded` per new seq. */
export const recordJournalEventsSchema = z.object({
  runId: idSchema,
  events: z.array(journalEventSchema).min(1).max(MAX_JOURNAL_EVENTS),
});

/** Command data schemas: each command carries the data of the event it asks for (defaults not yet applied). */
export const sessionCommandSchemas = {
  StartSession: sessionStartedDataSchema,
  RecordMessages: messagesRecordedDataSchema,
  SubmitMessage: userMessageSubmittedDataSchema,
  SettleTurn: turnSettledDataSchema,
  RecordJournalEvents: recordJournalEventsSchema,
  ObserveStateRows: stateRowsObservedDataSchema,
  TruncateTranscript: transcriptTruncatedDataSchema,
  CompressSession: sessionCompressedDataSchema,
  InterruptTurn: turnInterruptedDataSchema,
  RecoverTurnFromAgentStore: turnRecoveredFromAgentStoreDataSchema,
  AbandonJournalRecovery: journalRecoveryAbandonedDataSchema,
  EraseSession: sessionErasedDataSchema,
} as const;

type CommandSchemas = typeof sessionCommandSchemas;

export type SessionCommandType = keyof CommandSchemas;

type DeepReadonly<T> = T extends (infer Item)[]
  ? readonly DeepReadonly<Item>[]
  : T extends object
    ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> }
    : T;

/** Commands are imperative `{ type, data }` values; `data` is what the request body (plus path ids) says. */
export type SessionCommand = {
  [Type in SessionCommandType]: { readonly type: Type; readonly data: DeepReadonly<z.input<CommandSchemas[Type]>> };
}[SessionCommandType];

export type SessionCommandOf<Type extends SessionCommandType> = Extract<SessionCommand, { readonly type: Type }>;

/**
 * What a command decided. `duplicate: true` = a retry of something already recorded (found by its natural
 * key: the session id, a run id, `(runId, seq)`, a rowId with identical content): nothing to append, and the
 * shell answers `{ appended: 0, duplicate: true }` with the current version. A refusal is a thrown DomainError.
 */
export interface Decision {
  readonly events: readonly SessionEvent[];
  readonly duplicate: boolean;
}

export const appendEvents = (...events: SessionEvent[]): Decision => ({ events, duplicate: false });

export const DUPLICATE: Decision = Object.freeze({ events: Object.freeze([]) as readonly SessionEvent[], duplicate: true });
