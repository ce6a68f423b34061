import type { AppendOptions, AppendResult, EventStore, NewEvent, ReadAllResult, ReadLogOptions, StoredEvent, StreamDataEvent } from '../event-store.js';
import { carriesContent } from '#domain/replay';
import { readableEventData, sealEventData, storedSchemaOf } from './content-seal.js';
import type { SessionKeyring } from './session-keyring.js';

type Data = { readonly [key: string]: unknown };

/** A stored event as the sealing store hands it out: `data` readable, `storedData` what the chain hashed. */
export interface ReadableStoredEvent extends StoredEvent {
  /** The data as stored (sealed content), when it differs from `data`: what the hash chain covers. */
  readonly storedData?: unknown;
}

/**
 * The event store with each session's content sealed at rest (content-seal.ts): an append seals its events'
 * content with the stream's data key (made on the stream's first write) before the store writes and chains
 * them; every read opens it again and upcasts to the current schema (an erased stream's content reads empty).
 * Inline projections still receive the writer's fold state (`context`), which is plain, with the stream's data
 * key beside it (`SealingContext`): what they store of the content they seal with it.
 *
 * Without a keyring (`CHRONICLE_ENCRYPTION=off`) appends are stored as they are, and reads still go through
 * `readableEventData`: an event whose content an erasure dropped reads with its content fields empty, and an
 * event of an older schema is upcast, as with sealing on.
 */
export function sealEventStore<Store extends EventStore>(store: Store, keyring: SessionKeyring | null): Store {
  const keyOf = async (streamId: string) => (keyring === null ? null : await keyring.keyFor(streamId));
  const seal = async (keyring: SessionKeyring, streamId: string, events: readonly NewEvent[]): Promise<{ events: readonly NewEvent[]; key: Buffer | null }> => {
    // An append without content (a decision, a truncation, the erasure itself) makes no key; its inline read
    // models still seal with the one the session has.
    if (!events.some((event) => carriesContent(event.type))) return { events, key: (await keyring.keyFor(streamId))?.key ?? null };
    const { key } = await keyring.keyForWrite(streamId);
    return { events: events.map((event) => ({ ...event, data: sealEventData(key, streamId, event.type, event.data as Data) })), key };
  };
  // A replica that reads a stream's SessionErased drops the key it holds (the writer's replica destroyed it).
  const heard = (streamId: string, events: readonly { readonly type: string }[]): void => {
    if (keyring !== null && events.some((event) => event.type === 'SessionErased')) keyring.forget(streamId);
  };
  const open = (key: Buffer | null, event: StoredEvent): ReadableStoredEvent => {
    const data = readableEventData(key, event.streamId, event.type, event.data, storedSchemaOf(event.metadata));
    return data === event.data ? event : { ...event, data, storedData: event.data };
  };
  const overrides = {
    async append(streamId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult> {
      // Stored as given, with whatever key the caller put in the context (an import's stored forms).
      if (keyring === null) return store.append(streamId, events, options);
      const sealed = await seal(keyring, streamId, events);
      return store.append(streamId, sealed.events, withDataKey(options, sealed.key));
    },
    async readStream(streamId: string, range?: { from?: number; to?: number }): Promise<ReadableStoredEvent[]> {
      const [events, key] = await Promise.all([store.readStream(streamId, range), keyOf(streamId)]);
      heard(streamId, events);
      return events.map((event) => open(key?.key ?? null, event));
    },
    async readStreamData(streamId: string, range?: { from?: number; to?: number }): Promise<StreamDataEvent[]> {
      const [events, key] = await Promise.all([store.readStreamData(streamId, range), keyOf(streamId)]);
      heard(streamId, events);
      return events.map((event) => {
        const data = readableEventData(key?.key ?? null, streamId, event.type, event.data, event.schema ?? 1);
        return data === event.data ? event : { ...event, data };
      });
    },
    async readAll(options?: ReadLogOptions): Promise<ReadAllResult> {
      const page = await store.readAll(options);
      if (page.events.length === 0) return page;
      const keys = keyring === null ? new Map<string, { key: Buffer }>() : await keyring.keysFor(page.events.map((event) => event.streamId));
      return { ...page, events: page.events.map((event) => open(keys.get(event.streamId)?.key ?? null, event)) };
    },
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof typeof overrides];
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** What the sealing store adds to an append's `context` object: the stream's data key (null: the stream has none). */
export interface SealingContext {
  readonly dataKey?: Buffer | null;
}

function withDataKey(options: AppendOptions | undefined, key: Buffer | null): AppendOptions | undefined {
  const context = options?.context;
  if (typeof context !== 'object' || context === null) return options;
  return { ...options, context: { ...context, dataKey: key } satisfies SealingContext };
}
