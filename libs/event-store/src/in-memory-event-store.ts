import { canonicalJson } from '#domain';
import { chainHash } from './event-hash.js';
import { assertStorable } from './storable-text.js';
import {
  type AppendOptions,
  type AppendResult,
  type InlineProjection,
  comparePositions,
  ConcurrencyError,
  type EventStore,
  IdempotencyKeyTaken,
  type LogCursor,
  type NewEvent,
  type ReadAllResult,
  type ReadLogOptions,
  type ReadPositionsResult,
  START,
  type StoredEvent,
  type StreamDataEvent,
  type StreamHead,
} from './event-store.js';

interface Stream {
  version: number;
  lastHash: string;
  events: StoredEvent[];
  keys: Map<string, number>;
}

/** One process is one node: every event's origin. */
const ORIGIN = '0';

/** The in-memory twin's transaction handle, as its inline projections receive it. */
export interface InMemoryTransaction {
  readonly transactionId: string;
}

/**
 * The in-memory twin for unit tests. It models what the contract needs of PostgreSQL:
 * transaction ids handed out when a write starts, atomic commit (inline projections run before it, and a
 * rejection rolls it back), and the snapshot fence of `readAll` (nothing at or past the oldest transaction
 * still open is visible).
 */
export class InMemoryEventStore implements EventStore {
  private readonly streams = new Map<string, Stream>();
  private readonly committed: StoredEvent[] = [];
  private readonly open = new Set<bigint>();
  private readonly doomed = new Set<bigint>();
  private nextTransactionId = 1n;
  private nextGlobalPosition = 1n;

  constructor(private readonly inline: readonly InlineProjection<InMemoryTransaction>[] = []) {
    const fusedOnly = inline.find((projection) => projection.project === undefined);
    if (fusedOnly) throw new TypeError(`inline projection ${fusedOnly.name} is SQL fused into the append only: the in-memory store runs only \`project\``);
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('append needs at least one event');
    const expected = options.expectedVersion ?? 'any';
    const stream: Stream = this.streams.get(streamId) ?? { version: 0, lastHash: '', events: [], keys: new Map() };
    if (expected !== 'any' && stream.version !== expected) {
      throw new ConcurrencyError(streamId, expected, stream.version);
    }
    // The same refusal as PostgreSQL's, for the same text.
    assertStorable(
      streamId,
      events.map((e) => canonicalJson(e.data)),
      events.map((e) => JSON.stringify(e.metadata ?? {})),
      events,
    );
    const keys = options.idempotencyKeys ?? [];
    if (keys.some((key) => stream.keys.has(key)) || new Set(keys).size !== keys.length) {
      throw new IdempotencyKeyTaken(streamId, stream.version);
    }
    const transactionId = this.nextTransactionId++;
    this.open.add(transactionId);
    let hash = stream.lastHash;
    const written: StoredEvent[] = events.map((event, index) => {
      const version = stream.version + index + 1;
      hash = chainHash(hash, version, event.type, event.data);
      return {
        streamId,
        version,
        globalPosition: String(this.nextGlobalPosition++),
        type: event.type,
        data: structuredClone(event.data),
        metadata: structuredClone(event.metadata ?? {}),
        hash,
        recordedAt: new Date().toISOString(),
        origin: ORIGIN,
        transactionId: String(transactionId),
      };
    });
    // Claim the versions now, as the row lock does, so a concurrent writer fails its check.
    const version = stream.version + events.length;
    stream.version = version;
    for (const key of keys) stream.keys.set(key, version);
    this.streams.set(streamId, stream);
    try {
      const appended = [{ streamId, events, version, context: options.context }];
      for (const projection of this.inline) await projection.project?.({ transactionId: String(transactionId) }, appended);
      if (this.doomed.delete(transactionId)) throw new Error('connection lost before the commit');
    } catch (error) {
      stream.version -= events.length;
      for (const key of keys) stream.keys.delete(key);
      this.open.delete(transactionId);
      throw error;
    }
    stream.lastHash = hash;
    stream.events.push(...written);
    this.committed.push(...written);
    this.open.delete(transactionId);
    // As one PostgreSQL would: a relaxed append is acknowledged as not yet flushed.
    return { streamId, version, globalPositions: written.map((e) => e.globalPosition), lastHash: hash, durable: options.durability !== 'relaxed' };
  }

  async readStream(streamId: string, range: { from?: number; to?: number } = {}): Promise<StoredEvent[]> {
    const from = range.from ?? 1;
    const to = range.to ?? Number.MAX_SAFE_INTEGER;
    return (this.streams.get(streamId)?.events ?? []).filter((e) => e.version >= from && e.version <= to);
  }

  async readStreamData(streamId: string, range: { from?: number; to?: number } = {}): Promise<StreamDataEvent[]> {
    return (await this.readStream(streamId, range)).map(({ version, type, data, metadata }) => ({
      version,
      type,
      data,
      schema: typeof metadata.schema === 'number' ? metadata.schema : null,
    }));
  }

  async readAll(options: ReadLogOptions = {}): Promise<ReadAllResult> {
    const after = options.after ?? START;
    const limit = options.limit ?? 1000;
    const fence = this.open.size > 0 ? [...this.open].reduce((a, b) => (a < b ? a : b)) : this.nextTransactionId;
    const from = after[ORIGIN];
    const events = this.committed
      .filter((e) => BigInt(e.transactionId) < fence && (from === undefined || comparePositions(e, from) > 0))
      .sort(comparePositions)
      .slice(0, limit);
    const last = events.at(-1);
    return {
      events,
      checkpoint: last ? { ...after, [ORIGIN]: { transactionId: last.transactionId, globalPosition: last.globalPosition } } : after,
      more: events.length === limit,
    };
  }

  async readPositions(options: ReadLogOptions = {}): Promise<ReadPositionsResult> {
    const { events, checkpoint, more } = await this.readAll(options);
    return {
      positions: events.map(({ streamId, version, origin, globalPosition, transactionId }) => ({ streamId, version, origin, globalPosition, transactionId })),
      checkpoint,
      more,
    };
  }

  async countPast(after: LogCursor, cap: number): Promise<number> {
    const from = after[ORIGIN];
    return Math.min(cap, this.committed.filter((e) => from === undefined || comparePositions(e, from) > 0).length);
  }

  async head(streamId: string): Promise<StreamHead | null> {
    const stream = this.streams.get(streamId);
    return stream && stream.events.length > 0
      ? { version: stream.version, lastHash: stream.lastHash, archived: false }
      : null;
  }

  async findIdempotencyKey(streamId: string, key: string): Promise<number | null> {
    return this.streams.get(streamId)?.keys.get(key) ?? null;
  }

  /** Fault injection for the contract suite: every transaction open now fails at its commit, as a lost connection would. */
  failOpenTransactions(): void {
    for (const transactionId of this.open) this.doomed.add(transactionId);
  }

  async close(): Promise<void> {}
}
