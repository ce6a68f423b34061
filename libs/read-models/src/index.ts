export { LruCache } from './lru-cache.js';
export { SnapshotStore, SNAPSHOT_SCHEMA_VERSION, type Snapshot, withStreamJournals } from './snapshot-store.js';
export { SessionViews, toDomainEvent, type LoadedState, type SessionViewsOptions, type TranscriptAt } from './session-views.js';
export { StateReloadWarnings } from './state-reload.warnings.js';
export { transcriptAnswerJson } from './answers/transcript-json.js';
export * from './session-index/session-index.projector.js';
export { indexRowOf, type IndexPendingTurn, type StoredIndexRow } from './session-index/index-row.builder.js';
export { summaryRowOf } from './session-summary/summary-row.builder.js';
export { type SessionAppendContext, sessionSummaryProjection } from './session-summary/session-summary.projection.js';
export { sealPlainSummaries, SUMMARIES_SEALED, type SummarySealingResult } from './session-summary/summary-sealing.js';
export { readCheckpoint, writeCheckpoint } from './projection-checkpoints.js';
export { erasureNotice, liveNotifyProjection, NOTIFY_CHANNEL, parseNotification } from './live/live-notify.projection.js';
export { createSessionEventStore, type SessionEventStoreOptions } from './session-event-store.js';
export { verifyChain, type ChainLink, type ChainVerdict, type StreamHeadLink } from './audit/chain-verification.js';
export { deepDiff, DEFAULT_DIFFERENCE_LIMIT, type Difference } from './audit/deep-diff.js';
export { compareReadModels, type ReadModelComparison, type StoredReadModels } from './audit/read-model-comparison.js';
export {
  auditSession,
  AuditSessionNotFoundError,
  type AuditDeps,
  type ServedViews,
  type SessionAudit,
} from './audit/session-audit.js';
export { auditAll, type AuditAllOptions, type AuditProgress, type AuditReport } from './audit/store/audit-all.js';
export { StreamingSessionAudit, type StoredModels } from './audit/store/streaming-session-audit.js';
export { ChainFollower } from './audit/chain-verification.js';
export { CONTINUOUS_AUDIT, ContinuousAuditor, type ContinuousAuditorOptions } from './audit/continuous-auditor.js';
export {
  isRebuildable,
  ProjectionNotFoundError,
  REBUILDABLE_PROJECTIONS,
  RebuildInProgressError,
  rebuildProjection,
  type RebuildableProjection,
  type RebuildDeps,
  type RebuildOptions,
  type RebuildResult,
} from './rebuild/projection-rebuild.js';
export type { RebuildPhase, RebuildProgress } from './rebuild/rebuild-progress.js';
export { findRecoveryCandidates, findContinuedSessions } from './session-index/recovery-candidates.query.js';
export { InvalidCursorError, listSessions, SESSION_STATUSES, type SessionListQuery } from './session-index/session-list.query.js';
export { ByteBoundedCache } from './answers/byte-bounded.cache.js';
export { chooseCoding, type ContentCoding, type EncodedAnswer, EncodedAnswers } from './answers/encoded-answers.js';
