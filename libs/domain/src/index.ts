/**
 * The one public surface of libs/domain: what other libs, apps, benches and tests use of it, by folder (README.md),
 * and nothing else. The domain's own specs import what only they use by relative path.
 */

// messages: the row shapes of the contract, and how a row's text is read
export type { InterruptionCause, JournalEvent, Marker, MessageContent, MessageRow, StateRow, ToolCard } from './messages/message-row.js';
export { hasToolCalls } from './messages/message-row.js';
export { rowText } from './messages/message-text.js';

// canonical and errors: canonical JSON and its sha256; DomainError
export { canonicalJson } from './canonical/canonical-json.js';
export { sha256Hex } from './canonical/hash.js';
export { DomainError } from './errors/domain.error.js';

// events: the permanent event catalogue, its schemas, stream ids
export { fromSessionStreamId, ID_PATTERN, SESSION_STREAM_PREFIX, toSessionStreamId } from './events/session-stream.js';
export { epochSecondsSchema, idSchema, journalEventSchema, markerSchema, messageRowSchema, stateRowSchema, toolCardSchema } from './events/row.schemas.js';
export type {
  JournalRecoveryAbandoned,
  SessionEvent,
  SessionEventType,
  TurnInterrupted,
  TurnRecoveredFromAgentStore,
  UserMessageSubmittedData,
} from './events/session.events.js';
export {
  messagesRecordedDataSchema,
  sessionCompressedDataSchema,
  sessionEventSchemas,
  stateRowsObservedDataSchema,
  transcriptTruncatedDataSchema,
  turnSettledDataSchema,
  userMessageSubmittedDataSchema,
} from './events/session-event.schemas.js';
export { fieldErrorsOf, parseSessionEvent } from './events/parse-session-event.js';
export { isPlainObject, MAX_JOURNAL_EVENTS, onlyKeys, plainJournalEvent, plainJournalEvents } from './events/journal-event.fast-parse.js';
export { schemaStampOf } from './events/event-schema.upcasters.js';
export { versionRanges } from './events/event-content.rule.js';
export type { ErasureRecord } from './session-state/session.state.js';

// session: commands and the decider; the fold (state, evolve) and the views it renders
export { recordJournalEventsSchema, type SessionCommand } from './session/session.commands.js';
export { decide } from './session/session.decider.js';
export { markerAwaitsJournal } from './session/decider.guards.js';
export { initialSessionState, runOf, type RunRecord, type SessionState } from './session-state/session.state.js';
export { journalFromEvents, journalSpansOf, storedFormOf, withJournalsFromEvents } from './session-state/stored-form.js';
export { evolve, evolveAll } from './session/session.evolve.js';
export { projectSession, render, renderTranscript } from './session/session.render.js';
export { renderInputsOf, renderNext, type RenderInputs } from './session/render-next.js';
export { followStreaming, type StreamingFold, streamingOutputOf, type StreamingOutput } from './session/streaming-output.js';
export { transcriptDelta, type TranscriptDelta } from './session/transcript-delta.js';
export { chainRows, transcriptHashOf } from './session/transcript-hash.js';
export type { MarkerCounts, RenderedTranscript, SessionView, TranscriptViewName } from './session/session.view.js';
export { SESSION_STATUSES } from './session/session.view.js';

// journal: a run's journal, stored in seq order and summarised
export type { JournalState, JournalSummary } from './journal/journal.types.js';
export { summarizeJournal } from './journal/journal-summary.projection.js';
export { flattenJournal, rangesSize } from './journal/journal-chunks.js';
export { rowFromEmbeddedMessage } from './journal/embedded-row.mapper.js';

// transcript-merge: the reference merge ladder of the sidecar and the agent store (§2), and prompt matching
export { mergeSessionMessages } from './transcript-merge/session-messages.merge.js';
export { isStampedInTurn, promptMatchOf, type PromptMatch } from './transcript-merge/prompt-match.rule.js';
