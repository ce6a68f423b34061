/** The one public surface of libs/domain; folders are concepts (README.md). */
export * from './messages/message-row.js';
export * from './session-stream.js';

// canonical
export * from './canonical/canonical-json.js';
export * from './canonical/hash.js';
export * from './canonical/comparison-json.js';

// events
export * from './events/row.schemas.js';
export * from './events/session.events.js';
export * from './events/session-event.schemas.js';
export * from './events/parse-session-event.js';
export * from './events/free-json.schema.js';

// projection
export { initialSessionState, isRunSlot, runOf } from './projection/session.state.js';
export type {
  CommittedEntry,
  InterruptionRecord,
  PendingTurnView,
  RunOutcome,
  RunRecord,
  RunSlot,
  SessionState,
} from './projection/session.state.js';
export { evolve, evolveAll } from './projection/session.evolve.js';
export { projectSession, render, renderTranscript } from './projection/session.render.js';
export { renderNext, rendersSameTranscript, type RenderedState } from './projection/render-next.js';
export { streamingOutputOf, type StreamingOutput } from './projection/streaming-output.js';
export { transcriptDelta, type TranscriptDelta } from './projection/transcript-delta.js';
export { chainRows, TRANSCRIPT_CHAIN_SEED, transcriptHashOf } from './projection/transcript-hash.js';
export { canSupersede } from './projection/commit.policy.js';
export { findStateRow } from './projection/state-rows.js';
export type {
  MarkerCounts,
  RenderedTranscript,
  SessionStatus,
  SessionSummaryView,
  SessionView,
  TranscriptViewName,
} from './projection/session.view.js';

// deciders
export * from './errors/domain.error.js';
export * from './deciders/session.commands.js';
export { decide } from './deciders/session.decider.js';

// journal
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
export {
  eventTerminalState,
  isTerminalEvent,
  isVisibleOutputEvent,
  summarizeJournal,
} from './journal/journal-summary.projection.js';
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
} from './journal/marker-wording.constants.js';
export {
  buildMarkerRow,
  deriveMarkerStatus,
  deriveShownMarkerStatus,
  deriveJournalOutcome,
  type JournalOutcome,
  type MarkerRowInput,
  type MarkerStatusInput,
} from './journal/marker-status.policy.js';
export { materialiseJournal } from './journal/journal-output.materialiser.js';
export { SUBSTRING_DEDUPE_MIN_LENGTH } from './journal/journal-flush.materialiser.js';
export { TOOL_ARG_KEY_LIMIT, TOOL_ARG_VALUE_LIMIT, summariseToolArgs } from './journal/tool-card.factory.js';
export {
  findGatewayTerminalError,
  recoverGatewayTerminalError,
  type GatewayTerminalError,
} from './journal/gateway-error.recovery.js';
export { rowFromEmbeddedMessage } from './journal/embedded-row.mapper.js';
export {
  CONTEXT_DEDUPE_LOOKBACK,
  appendToContext,
  mirrorToContext,
  projectRowForContext,
  seedContext,
} from './journal/context-rows.projection.js';
export {
  buildRecoveredPendingRow,
  findTurnStart,
  isCheckpointMatch,
  isSameCheckpoint,
} from './journal/recovered-pending-row.factory.js';
export { canSupersedeMarker, isInterruptedMarker, placeRecoveredRows, type PlacedRows } from './journal/recovered-rows.placement.js';

// merge
/**
 * Transcript reconciliation of the agent store (state.db) into the sidecar display, reproducing the
 * reference merge of hermes-transcript-rules §2 as pure functions over immutable rows.
 */
export { mergeSessionMessages, MERGE_LADDER, sidecarOwnsInterruptedTurn } from './merge/session-messages.merge.js';
export type { MergeOptions } from './merge/merge.context.js';
export { reconcileContext, isCompactionMarker } from './merge/context.reconcile.js';
export type { CompressionAnchor, ReconcileContextOptions } from './merge/context.reconcile.js';
export { stateDeltaAfterContext } from './merge/context-delta.align.js';
export { insertChronologically } from './merge/chronological.insert.js';
export { attachApiContentFromState } from './merge/api-content.prepass.js';
export { stripWorkspacePrefix, ws, looseText, FUZZY_MAX_KEYS, FUZZY_MAX_CHARS } from './merge/text.normalizer.js';
export { mergeKey, dedupKey, contentKey, visibleKey, visibleTextOf } from './merge/comparison-keys.builder.js';
export { keyRow, k1Of, k2Of, k3Of, k4Of, keyString, sameKey } from './merge/comparison-keys.builder.js';
export type { KeyedRow, Side } from './merge/comparison-keys.builder.js';
export { backfillMeta } from './merge/display-meta.backfill.js';
export { mirrorTextOf } from './merge/native-image.mirror.js';
