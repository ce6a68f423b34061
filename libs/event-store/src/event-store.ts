/** The event store port: one implementation on PostgreSQL, one in memory, one contract suite for both. */
export interface NewEvent {
  readonly type: string;
  readonly data: unknown;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface StoredEvent {
  readonly streamId: string;
  readonly version: number;
  /** bigint as a decimal string. */
  readonly globalPosition: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** sha256(previous hash + canonical JSON of { version, type, data }), hex. */
  readonly hash: string;
  readonly recordedAt: string;
  /** The node whose transaction ids `transactionId` counts in (see `LogCursor`), as a decimal string. */
  readonly origin: string;
  /** xid8 of the writing transaction on its origin, as a decimal string. */
  readonly transactionId: string;
}

/** A position in one origin's commit-safe order: (transaction id, global position), compared as a pair. */
export interface LogPosition {
  readonly transactionId: string;
  readonly globalPosition: string;
}

/**
 * Where a reader of the log stands: a position per origin. An event's origin is the node whose transaction ids
 * order it: "0" on one server, the Citus group id of the node that wrote it on a cluster (a group is a node and
 * the standbys that take over from it with its transaction ids; each node counts its own
 * transactions, so there is no single order across them and nothing here assumes one). Each origin is read in
 * its own (transaction id, global position) order behind its own fence, so an event committed late on one node
 * is never skipped because another node's events were read past it.
 */
export type LogCursor = Readonly<Record<string, LogPosition>>;

/** Before every event. */
export const START: LogCursor = Object.freeze({});

export type ExpectedVersion = number | 'any';

export interface AppendOptions {
  /** `any` (default) appends after whatever is there; a number must equal the current version (0 = no stream). */
  readonly expectedVersion?: ExpectedVersion;
  /** Natural keys recorded with the append; a key already present fails the whole append with IdempotencyKeyTaken. */
  readonly idempotencyKeys?: readonly string[];
  /**
   * Handed, unread, to the store's inline projections with this append (the session writer passes the fold
   * state it evolved, so a projection builds its row without folding again). The store never looks inside.
   */
  readonly context?: unknown;
  /**
   * `relaxed`: the append may be acknowledged before its commit is flushed to disk (PostgreSQL's
   * `synchronous_commit = off` for a transaction whose appends are all relaxed). A crash of PostgreSQL itself can
   * lose the last relaxed commits (up to about three `wal_writer_delay`s); a later flushed commit flushes every
   * earlier one with it (the WAL is written in order). Default `durable`. A store that cannot relax commits
   * them durably and answers `durable: true`.
   */
  readonly durability?: Durability;
}

export type Durability = 'durable' | 'relaxed';

/** One append as an inline projection sees it, inside the transaction that writes it. */
export interface AppendedStream {
  readonly streamId: string;
  readonly events: readonly NewEvent[];
  /** Stream version after this append. */
  readonly version: number;
  readonly context: unknown;
}

/**
 * A statement of a fused inline projection (see `InlineProjection`): one SQL statement that returns rows (a
 * SELECT, or a write with RETURNING) over the CTE `appended (item int, stream_id text, version bigint)`, which
 * holds one row per append of the batch that was written (`item`: the append's 1-based position in the
 * attempted list; `version`: the stream version it reached). `$1…$n` in `text` are its own values; `text` must
 * hold `$` only in those placeholders. It runs inside the append statement (one snapshot), so it sees only
 * `appended`, never the event rows the append writes.
 */
export interface FusedStatement {
  readonly text: string;
  /** How many values `values` returns (the statement is prepared once, so its placeholders are fixed). */
  readonly valueCount: number;
  /** Its values for the appends a batch attempts, in batch order (the `item` numbering of `appended`). */
  values(attempted: readonly AttemptedAppend[]): readonly unknown[];
}

/**
 * A fused projection's form on a Citus cluster, where the append runs as a function on the worker that holds
 * the stream (migration 1764500007000, `chronicle_append_routed`): one statement per written append, `$1` the
 * stream id, `$2` the version it reached, `$3` its `value` (JSON; null skips it). `table` names the distributed
 * table it writes (`%s` in `text` becomes that table's local shard), or null for one that writes none.
 */
export interface RoutedStatement {
  readonly table: string | null;
  readonly text: string;
  value(append: AttemptedAppend): unknown;
}

/** An append as a batch sends it, before its outcome is known. */
export interface AttemptedAppend {
  readonly streamId: string;
  readonly events: readonly NewEvent[];
  /** The version the append expects its stream at (null: any). */
  readonly expected: number | null;
  readonly context: unknown;
}

/**
 * A read model written in the append's own transaction (Marten's "inline" projection), in one of two forms.
 * `project` receives the transaction handle (`Tx`: a pg client for PostgreSQL, a token for the in-memory
 * twin) after the events are written and before the commit; a rejection rolls the transaction back.
 * `fused` says it declaratively for the PostgreSQL store: a statement that becomes part of the append
 * statement itself, so a batch whose projections are all fused is one statement in its own implicit
 * transaction: one round trip, no BEGIN or COMMIT. The in-memory store runs only `project`; a projection may
 * give both forms (the same read model for either store).
 */
export type InlineProjection<Tx = unknown> =
  | {
      readonly name: string;
      project(tx: Tx, appended: readonly AppendedStream[]): Promise<void>;
      readonly fused?: FusedStatement;
      readonly routed?: RoutedStatement;
    }
  | {
      readonly name: string;
      readonly fused: FusedStatement;
      readonly routed?: RoutedStatement;
      readonly project?: undefined;
    };

export interface AppendResult {
  readonly streamId: string;
  /** Stream version after the append. */
  readonly version: number;
  readonly globalPositions: readonly string[];
  readonly lastHash: string;
  /** False when the append was committed relaxed (acknowledged before its commit was flushed). */
  readonly durable: boolean;
}

/** A page of the log: every origin's next events, each origin's in its own order, the origins' taken in turn. */
export interface ReadAllResult {
  readonly events: readonly StoredEvent[];
  /** The cursor after the returned events (unchanged when none). */
  readonly checkpoint: LogCursor;
  /** Some origin's page was full: more may be visible already. */
  readonly more: boolean;
}

/** Where an event sits, without its data: what a projector needs to know which streams a page touched. */
export interface EventPosition {
  readonly streamId: string;
  readonly version: number;
  readonly origin: string;
  readonly globalPosition: string;
  readonly transactionId: string;
}

export interface ReadPositionsResult {
  readonly positions: readonly EventPosition[];
  readonly checkpoint: LogCursor;
  readonly more: boolean;
}

/** What `readAll` and `readPositions` take: `limit` events per origin at most. */
export interface ReadLogOptions {
  readonly after?: LogCursor;
  readonly limit?: number;
}

/** An event as a fold reads it (`readStreamData`). */
export interface StreamDataEvent {
  readonly version: number;
  readonly type: string;
  readonly data: unknown;
  /** The schema version it was written with (`metadata.schema`; null: 1). */
  readonly schema?: number | null;
}

export interface StreamHead {
  readonly version: number;
  readonly lastHash: string;
  readonly archived: boolean;
}

export interface EventStore {
  append(streamId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult>;
  readStream(streamId: string, range?: { from?: number; to?: number }): Promise<StoredEvent[]>;
  /**
   * `readStream` with what a fold reads only (version, type, data): no metadata, hash or commit fields to read
   * and build, about half the time per event on PostgreSQL. For the tail of a cold read and a snapshot's journals.
   */
  readStreamData(streamId: string, range?: { from?: number; to?: number }): Promise<StreamDataEvent[]>;
  readAll(options?: ReadLogOptions): Promise<ReadAllResult>;
  /** `readAll`'s page (same fences, same order) without data or metadata. */
  readPositions(options?: ReadLogOptions): Promise<ReadPositionsResult>;
  /** Events past `after` that are visible now, counted up to `cap` (a lag metric: the count walks only the lag). */
  countPast(after: LogCursor, cap: number): Promise<number>;
  head(streamId: string): Promise<StreamHead | null>;
  /** Version at which a natural key was recorded, or null. */
  findIdempotencyKey(streamId: string, key: string): Promise<number | null>;
  close(): Promise<void>;
}

export class ConcurrencyError extends Error {
  readonly code = 'STREAM_VERSION_CONFLICT';
  constructor(
    readonly streamId: string,
    readonly expectedVersion: ExpectedVersion,
    readonly actualVersion: number | null,
  ) {
    super(`stream ${streamId} is at version ${actualVersion ?? 'unknown'}, expected ${expectedVersion}`);
    this.name = 'ConcurrencyError';
  }
}

export class IdempotencyKeyTaken extends Error {
  readonly code = 'IDEMPOTENCY_KEY_TAKEN';
  constructor(
    readonly streamId: string,
    /** The stream's version when the duplicate was refused (null when unknown). */
    readonly currentVersion: number | null = null,
  ) {
    super(`an idempotency key of this append was already recorded on stream ${streamId}`);
    this.name = 'IdempotencyKeyTaken';
  }
}

/** Compares positions of one origin as (transactionId, globalPosition) pairs of unbounded integers. */
export function comparePositions(a: LogPosition, b: LogPosition): number {
  const tx = BigInt(a.transactionId) - BigInt(b.transactionId);
  if (tx !== 0n) return tx < 0n ? -1 : 1;
  const gp = BigInt(a.globalPosition) - BigInt(b.globalPosition);
  return gp === 0n ? 0 : gp < 0n ? -1 : 1;
}
