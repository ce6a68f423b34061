/**
 * Transcript reconciliation of the agent store (state.db) into the sidecar display, reproducing the
 * reference merge of hermes-transcript-rules §2 as pure functions over immutable rows.
 */
export { mergeSessionMessages, MERGE_LADDER, sidecarOwnsInterruptedTurn } from './session-messages.merge.js';
export type { MergeOptions } from './merge.context.js';
export { reconcileContext, isCompactionMarker } from './context.reconcile.js';
export type { CompressionAnchor, ReconcileContextOptions } from './context.reconcile.js';
export { stateDeltaAfterContext } from './context-delta.align.js';
export { insertChronologically } from './chronological.insert.js';
export { attachApiContentFromState } from './api-content.prepass.js';
export { stripWorkspacePrefix, ws, looseText, FUZZY_MAX_KEYS, FUZZY_MAX_CHARS } from './text.normalizer.js';
export { mergeKey, dedupKey, contentKey, visibleKey, visibleTextOf } from './comparison-keys.builder.js';
export { keyRow, k1Of, k2Of, k3Of, k4Of, keyString, sameKey } from './comparison-keys.builder.js';
export type { KeyedRow, Side } from './comparison-keys.builder.js';
export { backfillMeta } from './display-meta.backfill.js';
export { mirrorTextOf } from './native-image.mirror.js';
