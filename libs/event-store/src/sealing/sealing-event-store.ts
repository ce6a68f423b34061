import type { AppendOptions, AppendResult, EventStore, NewEvent, ReadAllResult, ReadLogOptions, StoredEvent, StreamDataEvent } from '../event-store.js';
import { carriesContent } from '#domain/replay';
import { readableEventsData, runEdges, sealEventsData, storedSchemaOf } from './content-seal.js';
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
    const stored = sealEventsData(key, streamId, events);
    return { events: events.map((event, i) => ({ ...event, data: stored[i] })), key };
  };
  /**
   * Events of one stream, read consecutively, with every sealed run they hold a member of made whole: the members
   * before the first and past the last are read too (`read`), opened with them, and left out of the answer.
   */
  const openStream = async <E extends { readonly version: number; readonly type: string; readonly data: unknown }>(
    key: Buffer | null,
    streamId: string,
    events: readonly E[],
    schemaOf: (event: E) => number,
    read: (from: number, to: number) => Promise<readonly E[]>,
  ): Promise<{ event: E; data: Data }[]> => {
    if (events.length === 0) return [];
    const { before, after } = key === null ? { before: 0, after: 0 } : runEdges(events);
    const first = events[0].version;
    const last = events[events.length - 1].version;
    const [ahead, past] = await Promise.all([before > 0 ? read(first - before, first - 1) : [], after > 0 ? read(last + 1, last + after) : []]);
    const whole = ahead.length + past.length === 0 ? events : [...ahead, ...events, ...past];
    // Read as far as the runs' positions say: a run still cut (an edited position) reads as erased.
    const data = readableEventsData(key, streamId, whole.map((event) => ({ type: event.type, data: event.data, schema: schemaOf(event) })), { cut: 'erased' });
    return events.map((event, i) => ({ event, data: data[ahead.length + i] }));
  };
  // A replica that reads a stream's SessionErased drops the key it holds (the writer's replica destroyed it).
  const heard = (streamId: string, events: readonly { readonly type: string }[]): void => {
    if (keyring !== null && events.some((event) => event.type === 'SessionErased')) keyring.forget(streamId);
  };
  const readable = ({ event, data }: { event: StoredEvent; data: Data }): ReadableStoredEvent =>
    data === event.data ? event : { ...event, data, storedData: event.data };
  const schemaOfStored = (event: StoredEvent) => storedSchemaOf(event.metadata);
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
      const opened = await openStream(key?.key ?? null, streamId, events, schemaOfStored, (from, to) => store.readStream(streamId, { from, to }));
      return opened.map(readable);
    },
    async readStreamData(streamId: string, range?: { from?: number; to?: number }): Promise<StreamDataEvent[]> {
      const [events, key] = await Promise.all([store.readStreamData(streamId, range), keyOf(streamId)]);
      heard(streamId, events);
      const opened = await openStream(key?.key ?? null, streamId, events, (event) => event.schema ?? 1, (from, to) => store.readStreamData(streamId, { from, to }));
      return opened.map(({ event, data }) => (data === event.data ? event : { ...event, data }));
    },
    async readAll(options?: ReadLogOptions): Promise<ReadAllResult> {
      const page = await store.readAll(options);
      if (page.events.length === 0) return page;
      const keys = keyring === null ? new Map<string, { key: Buffer }>() : await keyring.keysFor(page.events.map((event) => event.streamId));
      // A page interleaves its origins (on Citus, a stream moved with its shard has events of two), so it may hold
      // a stream's events out of version order, with gaps, and cut a run at either end: each stream's events are
      // opened in spans of consecutive versions, each span's runs made whole.
      const byStream = new Map<string, StoredEvent[]>();
      for (const event of page.events) {
        const list = byStream.get(event.streamId);
        if (list === undefined) byStream.set(event.streamId, [event]);
        else list.push(event);
      }
      const opened = new Map<StoredEvent, ReadableStoredEvent>();
      const spans: { streamId: string; events: StoredEvent[] }[] = [];
      for (const [streamId, events] of byStream) {
        events.sort((a, b) => a.version - b.version);
        let span: StoredEvent[] = [];
        for (const event of events) {
          if (span.length > 0 && event.version !== span[span.length - 1].version + 1) {
            spans.push({ streamId, events: span });
            span = [];
          }
          span.push(event);
        }
        spans.push({ streamId, events: span });
      }
      await Promise.all(
        spans.map(async ({ streamId, events }) => {
          const read = (from: number, to: number) => store.readStream(streamId, { from, to });
          for (const one of await openStream(keys.get(streamId)?.key ?? null, streamId, events, schemaOfStored, read)) opened.set(one.event, readable(one));
        }),
      );
      return { ...page, events: page.events.map((event) => opened.get(event) as ReadableStoredEvent) };
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
