export * from './event-store.js';
export { chainHash } from './event-hash.js';
export { PostgresEventStore } from './postgres-event-store.js';
export { InMemoryEventStore } from './in-memory-event-store.js';
export { instrumentEventStore, type AppendObserver } from './instrumented-event-store.js';
