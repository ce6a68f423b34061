/**
 * The one public surface of libs/domain. Each folder is a concept (README.md); this file lists what other libs
 * and apps may use of each.
 */

// messages: the row shapes of the contract, and how a row's text and checkpoint are read
export * from './messages/message-row.js';
export { isSameCheckpoint } from './messages/user-checkpoint.js';
export { rowText } from './messages/message-text.js';

// text and canonical: ws(), canonical JSON and its sha256
export { ws } from './text/whitespace.js';
export * from './canonical/canonical-json.js';
export * from './canonical/hash.js';
export * from './canonical/comparison-json.js';

// errors
export * from './errors/domain.error.js';

// events: the permanent event catalogue, its schemas, stream ids
export * from './events/session-stream.js';
export * from './events/row.schemas.js';
export * from './events/session.events.js';
export * from './events/session-event.schemas.js';
export * from './events/parse-session-event.js';
export * from './events/free-json.schema.js';

// session: commands and the decider; the fold (state, evolve) and the views it renders
export * from './session/session.commands.js';
export { decide } from './session/session.decider.js';
export { markerAwaitsJournal } from './session/decider.guards.js';
export { initialSessionState, isRunSlot, runOf } from './session-state/session.state.js';
export type {
  CommittedEntry,
  InterruptionRecord,
  PendingTurnView,
  RunOutcome,
  RunRecord,
  RunSlot,
  SessionState,
} from './session-state/session.state.js';
export { findStateRow } from './session-state/state-rows.js';
export { journalFromEvents, journalSpansOf, storedFormOf, withJournals, withJournalsFromEvents, withJournalsOf } from './session-state/stored-form.js';
export { evolve, evolveAll } from './session/session.evolve.js';
export { projectSession, render, renderTranscript } from './session/session.render.js';
export { renderInputsOf, renderNext, rendersSameTranscript, type RenderedState, type RenderInputs } from './session/render-next.js';
export { streamingOutputOf, type StreamingOutput } from './session/streaming-output.js';
export { transcriptDelta, type TranscriptDelta } from './session/transcript-delta.js';
export { chainRows, TRANSCRIPT_CHAIN_SEED, transcriptHashOf } from './session/transcript-hash.js';
export { canSupersede } from './session/marker-supersede.policy.js';
export type {
  MarkerCounts,
  RenderedTranscript,
  SessionStatus,
  SessionSummaryView,
  SessionView,
  TranscriptViewName,
} from './session/session.view.js';

// journal: a run's journal materialised into rows and tool cards
export type {
  GatewayErrorInput,
  GatewayErrorResult,
  JournalState,
  JournalSummary,
  MaterialiseJournalInput,
  MaterialiseJournalResult,
  PendingTurn,
  SeqGap,
  TerminalState,
} from './journal/journal.types.js';
export { eventTerminalState, isTerminalEvent, isVisibleOutputEvent, summarizeJournal } from './journal/journal-summary.projection.js';
export { materialiseJournal } from './journal/journal-output.materialiser.js';
export { flattenJournal, journalEventOf, rangesSize, type SeqRanges } from './journal/journal-chunks.js';
export { SUBSTRING_DEDUPE_MIN_LENGTH } from './journal/journal-flush.materialiser.js';
export { TOOL_ARG_KEY_LIMIT, TOOL_ARG_VALUE_LIMIT, summariseToolArgs } from './journal/tool-card.factory.js';
export { findGatewayTerminalError, recoverGatewayTerminalError, type GatewayTerminalError } from './journal/gateway-error.recovery.js';
export { rowFromEmbeddedMessage } from './journal/embedded-row.mapper.js';
export { buildRecoveredPendingRow, findTurnStart, isCheckpointMatch } from './journal/recovered-pending-row.factory.js';

// markers: the interruption marker's status rule, wording and placement
export {
  INTERRUPTED_MARKER_LEAD,
  INTERRUPTED_NEUTRAL_WORDING,
  INTERRUPTED_NO_OUTPUT_WORDING,
  INTERRUPTED_PENDING_RETRY_WORDING,
  INTERRUPTED_RECOVERED_WORDING,
  INTERRUPTION_CAUSE_DETAILS,
  MARKER_OUTCOMES,
  causeDetail,
  composeMarkerContent,
  type ShownMarkerStatus,
} from './markers/marker-wording.constants.js';
export {
  buildMarkerRow,
  deriveMarkerStatus,
  deriveShownMarkerStatus,
  deriveJournalOutcome,
  type JournalOutcome,
  type MarkerRowInput,
  type MarkerStatusInput,
} from './markers/marker-status.policy.js';
export { canSupersedeMarker, isInterruptedMarker, placeRecoveredRows, type PlacedRows } from './markers/recovered-rows.placement.js';

// context: the model context, projected from rows and reconciled with the agent store
export {
  CONTEXT_DEDUPE_LOOKBACK,
  appendToContext,
  mirrorToContext,
  projectRowForContext,
  seedContext,
} from './context/context-rows.projection.js';
export { reconcileContext, isCompactionMarker } from './context/context.reconcile.js';
export type { CompressionAnchor, ReconcileContextOptions } from './context/context.reconcile.js';
export { stateDeltaAfterContext } from './context/context-delta.align.js';

// transcript-merge: the reference merge ladder of the sidecar and the agent store (§2)
export { mergeSessionMessages, MERGE_LADDER, sidecarOwnsInterruptedTurn } from './transcript-merge/session-messages.merge.js';
export type { MergeOptions } from './transcript-merge/merge.context.js';
export { insertChronologically } from './transcript-merge/chronological.insert.js';
export { attachApiContentFromState } from './transcript-merge/api-content.prepass.js';
export { stripWorkspacePrefix } from './transcript-merge/workspace-prefix.rule.js';
export { isStampedInTurn, promptMatchOf, type PromptMatch, type SubmittedPrompt } from './transcript-merge/prompt-match.rule.js';
export { looseText, FUZZY_MAX_KEYS, FUZZY_MAX_CHARS } from './transcript-merge/fuzzy-text.match.js';
export { mergeKey, dedupKey, contentKey, visibleKey, visibleTextOf } from './transcript-merge/comparison-keys.builder.js';
export { keyRow, mergeKeyOf, dedupKeyOf, contentKeyOf, visibleKeyOf, keyString, sameKey } from './transcript-merge/comparison-keys.builder.js';
export type { KeyedRow, Side } from './transcript-merge/comparison-keys.builder.js';
export { backfillMeta } from './transcript-merge/display-meta.backfill.js';
export { mirrorTextOf } from './transcript-merge/native-image.mirror.js';
