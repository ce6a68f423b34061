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
  /** xid8 of the writing transaction, as a decimal string. */
  readonly transactionId: string;
}

/** A position in the global order: (transaction id, global position), compared as a pair. */
export interface Checkpoint {
  readonly transactionId: string;
  readonly globalPosition: string;
}

export const START: Checkpoint = { transactionId: '0', globalPosition: '0' };

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
}

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
    }
  | {
      readonly name: string;
      readonly fused: FusedStatement;
      readonly project?: undefined;
    };

export interface AppendResult {
  readonly streamId: string;
  /** Stream version after the append. */
  readonly version: number;
  readonly globalPositions: readonly string[];
  readonly lastHash: string;
}

export interface ReadAllResult {
  readonly events: readonly StoredEvent[];
  /** Checkpoint after the last returned event (unchanged when none). */
  readonly checkpoint: Checkpoint;
}

/** Where an event sits, without its data: what a projector needs to know which streams a page touched. */
export interface EventPosition {
  readonly streamId: string;
  readonly version: number;
  readonly globalPosition: string;
  readonly transactionId: string;
}

export interface ReadPositionsResult {
  readonly positions: readonly EventPosition[];
  readonly checkpoint: Checkpoint;
}

/** An event as a fold reads it (`readStreamData`). */
export interface StreamDataEvent {
  readonly version: number;
  readonly type: string;
  readonly data: unknown;
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
  readAll(options?: { after?: Checkpoint; limit?: number }): Promise<ReadAllResult>;
  /** `readAll`'s page (same fence, same order) without data or metadata. */
  readPositions(options?: { after?: Checkpoint; limit?: number }): Promise<ReadPositionsResult>;
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

/** Compares checkpoints as (transactionId, globalPosition) pairs of unbounded integers. */
export function compareCheckpoints(a: Checkpoint, b: Checkpoint): number {
  const tx = BigInt(a.transactionId) - BigInt(b.transactionId);
  if (tx !== 0n) return tx < 0n ? -1 : 1;
  const gp = BigInt(a.globalPosition) - BigInt(b.globalPosition);
  return gp === 0n ? 0 : gp < 0n ? -1 : 1;
}
