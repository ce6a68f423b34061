export { LruCache } from './lru-cache.js';
export { SnapshotStore, SNAPSHOT_SCHEMA_VERSION, type Snapshot } from './snapshot-store.js';
export { SessionViews, toDomainEvent, type LoadedState, type SessionViewsOptions } from './session-views.js';
export * from './session-index.projector.js';
