export * from './event-store.js';
export { chainHash, chainLink } from './event-hash.js';
export { CommitOutcomeUnknown } from './append-batch.outcomes.js';
export {
  PostgresEventStore,
  type PostgresEventStoreOptions,
} from './postgres-event-store.js';
export { DEFAULT_GROUP_COMMIT, type GroupCommitLimits } from './group-commit.queue.js';
export { UnstorableTextError } from './storable-text.js';
export { InMemoryEventStore, type InMemoryTransaction } from './in-memory-event-store.js';
export { instrumentEventStore, type AppendObserver } from './instrumented-event-store.js';
export { InlineProjectionError } from './inline-projection.error.js';
export { advanceCursor, cursorPassed, mergeCursors, parseCursor } from './log-cursor.js';
export { acrossSessions, allowFanOut, type DatabaseEngine, detectEngine, engineOf, lockConnection, queryAcrossSessions } from './database-engine.js';
export { atNode, type NodeAddress } from './node-router.js';
export {
  type DataKey,
  isSealed,
  isSealedSnapshotText,
  MAX_RUN,
  openSnapshotText,
  openText,
  readableEventData,
  readableEventsData,
  runEdges,
  runMemberOf,
  SealError,
  SEALED_FIELD,
  sealEventData,
  sealEventsData,
  sealSnapshotText,
  sealText,
  storedSchemaOf,
} from './sealing/content-seal.js';
export { MasterKeys, masterKeyIdOf, newMasterKeyText, parseMasterKey, type MasterKey } from './sealing/master-keys.js';
export { KEY_TABLE_DDL, SessionErasedError, SessionKeyring, type KeyringOptions } from './sealing/session-keyring.js';
export { sealEventStore, type ReadableStoredEvent, type SealingContext } from './sealing/sealing-event-store.js';
export { KeyStoreError, keyringFromSettings, keystoreUrlFor, openKeyring, resolveMasterKeys, type MasterKeySettings, type SealingSettings } from './sealing/keystore.js';
export { PlainContent } from './sealing/plain-content.js';
