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
} from './journal.types.js';
export {
  eventTerminalState,
  isTerminalEvent,
  isVisibleOutputEvent,
  summarizeJournal,
} from './journal-summary.projection.js';
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
} from './marker-wording.constants.js';
export {
  buildMarkerRow,
  deriveMarkerStatus,
  deriveShownMarkerStatus,
  deriveJournalOutcome,
  type JournalOutcome,
  type MarkerRowInput,
  type MarkerStatusInput,
} from './marker-status.policy.js';
export { materialiseJournal } from './journal-output.materialiser.js';
export { SUBSTRING_DEDUPE_MIN_LENGTH } from './journal-flush.materialiser.js';
export { TOOL_ARG_KEY_LIMIT, TOOL_ARG_VALUE_LIMIT, summariseToolArgs } from './tool-card.factory.js';
export {
  findGatewayTerminalError,
  recoverGatewayTerminalError,
  type GatewayTerminalError,
} from './gateway-error.recovery.js';
export { rowFromEmbeddedMessage } from './embedded-row.mapper.js';
export {
  CONTEXT_DEDUPE_LOOKBACK,
  appendToContext,
  mirrorToContext,
  projectRowForContext,
  seedContext,
} from './context-rows.projection.js';
export {
  buildRecoveredPendingRow,
  findTurnStart,
  isCheckpointMatch,
  isSameCheckpoint,
} from './recovered-pending-row.factory.js';
export { canSupersedeMarker, isInterruptedMarker, placeRecoveredRows, type PlacedRows } from './recovered-rows.placement.js';
