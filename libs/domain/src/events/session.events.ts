import type { InterruptionCause, JournalEvent, MessageRow, StateRow } from '../messages/message-row.js';

/**
 * The domain events of one session stream. Names and data shapes are permanent: a breaking change gets a new
 * type name (`…V2`) and an upcaster. Times are epoch seconds, as the agent or the supervisor stamped them.
 */
type DomainEvent<Type extends string, Data> = { readonly type: Type; readonly data: Data };

export type TruncationReason = 'edit' | 'retry' | 'undo' | 'clear' | 'compress';

export interface SessionStartedData {
  readonly sessionId: string;
  readonly title: string | null;
  readonly parentSessionId: string | null;
  readonly createdAt: number;
}

/** Rows the UI owns and committed (the reference "sidecar" rows); importers use it too. */
export interface MessagesRecordedData {
  readonly rows: readonly MessageRow[];
}

export interface UserMessageSubmittedData {
  readonly runId: string;
  readonly text: string;
  readonly attachments: readonly unknown[];
  readonly source: string | null;
  readonly submittedAt: number;
}

/** The worker finished: `rows` are the turn's display rows, the user row included. */
export interface TurnSettledData {
  readonly runId: string;
  readonly rows: readonly MessageRow[];
  readonly settledAt: number;
}

export interface JournalEventRecordedData extends JournalEvent {
  readonly runId: string;
}

export interface StateRowsObservedData {
  readonly rows: readonly StateRow[];
  readonly observedAt: number;
}

export interface TranscriptTruncatedData {
  readonly keepCount: number;
  readonly reason: TruncationReason;
  readonly at: number;
}

export interface SessionCompressedData {
  readonly childSessionId: string;
  readonly at: number;
}

/** Recovery decision. `runId: null` = the pending turn had no run id (cause `unknown`). */
export interface TurnInterruptedData {
  readonly runId: string | null;
  readonly cause: InterruptionCause;
  readonly detectedAt: number;
  readonly evidence: { readonly [key: string]: unknown };
}

export interface TurnRecoveredFromAgentStoreData {
  readonly runId: string;
  readonly detectedAt: number;
  /** Required since schema 2 (`{}` for a schema-1 event written without it). */
  readonly evidence: { readonly [key: string]: unknown };
}

export interface JournalRecoveryAbandonedData {
  readonly runId: string;
  readonly at: number;
  readonly reason: string;
}

/**
 * The session's personal content was erased (crypto-shredding): its data key is destroyed, so the content of its
 * sealed events can no longer be read; every other field (ids, roles, seqs, times, types) and the hash chain stay.
 * Plain (never sealed) and the last event of the stream: nothing is appended after it.
 */
export interface SessionErasedData {
  readonly at: number;
  readonly reason: string;
  /** The API key that asked for it (`admin`, a key id), or the retention sweep (`retention`). */
  readonly requestedBy: string;
  /** Which data key was destroyed (null: the session had none, its content was never sealed). */
  readonly dataKeyId: string | null;
  /**
   * Versions of events written before content was sealed (stored plain) whose content the erasure dropped from
   * the table, as [first, last] ranges: their stored links can no longer be recomputed, and the audit accepts a
   * link it cannot recompute only for an event listed here and stored in the dropped form (`DROPPED_CONTENT`).
   */
  readonly droppedContent?: readonly (readonly [number, number])[];
  /**
   * The session's last activity when it was erased (written since this field was added). The times inside its
   * content (a row's `timestamp`) are content, gone with the key: a replay without them reaches this value at the
   * erasure all the same, so the read models rebuilt by an audit equal the ones stored.
   */
  readonly lastActivityAt?: number | null;
}

export type SessionStarted = DomainEvent<'SessionStarted', SessionStartedData>;
export type MessagesRecorded = DomainEvent<'MessagesRecorded', MessagesRecordedData>;
export type UserMessageSubmitted = DomainEvent<'UserMessageSubmitted', UserMessageSubmittedData>;
export type TurnSettled = DomainEvent<'TurnSettled', TurnSettledData>;
export type JournalEventRecorded = DomainEvent<'JournalEventRecorded', JournalEventRecordedData>;
export type StateRowsObserved = DomainEvent<'StateRowsObserved', StateRowsObservedData>;
export type TranscriptTruncated = DomainEvent<'TranscriptTruncated', TranscriptTruncatedData>;
export type SessionCompressed = DomainEvent<'SessionCompressed', SessionCompressedData>;
export type TurnInterrupted = DomainEvent<'TurnInterrupted', TurnInterruptedData>;
export type TurnRecoveredFromAgentStore = DomainEvent<'TurnRecoveredFromAgentStore', TurnRecoveredFromAgentStoreData>;
export type JournalRecoveryAbandoned = DomainEvent<'JournalRecoveryAbandoned', JournalRecoveryAbandonedData>;
export type SessionErased = DomainEvent<'SessionErased', SessionErasedData>;

export type SessionEvent =
  | SessionStarted
  | MessagesRecorded
  | UserMessageSubmitted
  | TurnSettled
  | JournalEventRecorded
  | StateRowsObserved
  | TranscriptTruncated
  | SessionCompressed
  | TurnInterrupted
  | TurnRecoveredFromAgentStore
  | JournalRecoveryAbandoned
  | SessionErased;

export type SessionEventType = SessionEvent['type'];

export type SessionEventOf<Type extends SessionEventType> = Extract<SessionEvent, { readonly type: Type }>;

export type SessionEventData<Type extends SessionEventType> = SessionEventOf<Type>['data'];

export const SESSION_EVENT_TYPES: readonly SessionEventType[] = [
  'SessionStarted',
  'MessagesRecorded',
  'UserMessageSubmitted',
  'TurnSettled',
  'JournalEventRecorded',
  'StateRowsObserved',
  'TranscriptTruncated',
  'SessionCompressed',
  'TurnInterrupted',
  'TurnRecoveredFromAgentStore',
  'JournalRecoveryAbandoned',
  'SessionErased',
];
