import pg from 'pg';
import { canonicalJson, sha256Hex } from '#domain';
import {
  type AppendOptions,
  type AppendResult,
  type AppendedStream,
  type InlineProjection,
  type EventStore,
  type LogCursor,
  type NewEvent,
  type ReadAllResult,
  type ReadLogOptions,
  type ReadPositionsResult,
  type RoutedStatement,
  START,
  type StoredEvent,
  type StreamDataEvent,
  type StreamHead,
  type FusedStatement,
} from './event-store.js';
import { InlineProjectionError } from './inline-projection.error.js';
import { HeadReader } from './head-reader.js';
import { PipelinedTransaction } from './pipelined-transaction.js';
import { CommitOutcomeUnknown, compareText, isRetryableAlone, isStatementError, type ItemRow, type PendingAppend, toOutcome, translate } from './append-batch.outcomes.js';
import { assertStorable } from './storable-text.js';
import { type BatchOutcome, DEFAULT_GROUP_COMMIT, type GroupCommitLimits, GroupCommitQueue } from './group-commit.queue.js';
import { appendAtKnownHeadsValues, appendBatchValues, atKnownHeads, composeAppend } from './append-statements.js';
import { KnownHeads } from './known-heads.js';
import type { DatabaseEngine } from './database-engine.js';
import { LOG_POSITION_COLUMNS, LogReader, type LogRow } from './log-reader.js';
import { NodeRouter, NOT_ON_THIS_NODE } from './node-router.js';

// Qualified names matter: ORDER BY would otherwise bind to these text casts and sort "10" before "2".
const EVENT_COLUMNS = `e.stream_id, e.version::text AS version, e.global_position::text AS global_position, e.type,
  e.data, e.metadata, e.hash, e.recorded_at, e.origin::text AS origin, e.transaction_id::text AS transaction_id`;

interface EventRow extends LogRow {
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  hash: string;
  recorded_at: Date;
}

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    streamId: row.stream_id,
    version: Number(row.version),
    globalPosition: row.global_position,
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    hash: row.hash,
    recordedAt: row.recorded_at.toISOString(),
    origin: row.origin,
    transactionId: row.transaction_id,
  };
}

type FusedProjection = InlineProjection<pg.ClientBase> & { readonly fused: FusedStatement };
type HookProjection = InlineProjection<pg.ClientBase> & { readonly project: (tx: pg.ClientBase, appended: readonly AppendedStream[]) => Promise<void> };
type RoutedProjection = InlineProjection<pg.ClientBase> & { readonly routed: RoutedStatement };

/**
 * On Citus a group commit may wait this long for as many appends as were outstanding at once lately (a lone
 * writer never waits): part of what a routed call costs a worker is per call, not per append. At 16 clients of
 * 1-event POSTs over 2 replicas, calls carried 2.4 appends each without it and 3.8 with it, and the cluster took
 * 1.21× the events a second (bench/README.md, "Citus group commits that wait for their batch").
 */
export const CITUS_LINGER_MS = 2;

/** The routed append's call (migration 1764500007000): the batch of one node, its inline read models' statements. */
const ROUTED_APPEND = {
  name: 'chronicle_append_routed_call',
  text: `SELECT r.item, r.outcome, r.version::text AS version, r.last_hash, r.positions::text[] AS positions
           FROM chronicle_append_routed($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb) r`,
};

/** A named statement: prepared once per connection under a name that changes with its text. */
function namedStatement(prefix: string, text: string): { name: string; text: string } {
  return { name: `${prefix}_${sha256Hex(text).slice(0, 12)}`, text };
}

export interface PostgresEventStoreOptions {
  /** Read models written in each append's transaction (the session summary, the live NOTIFY). */
  readonly inline?: readonly InlineProjection<pg.ClientBase>[];
  readonly groupCommit?: Partial<GroupCommitLimits>;
  /** Told the size of every batch sent (a histogram's input). */
  readonly onBatch?: (size: number) => void;
  /** Stream heads remembered for appends at a known head (entries; 0 turns it off: every append hashes in SQL). */
  readonly knownHeads?: number;
  /** Told which append statement each transaction sent: the function (hashes in SQL) or the one at known heads. */
  readonly onAppendStatement?: (statement: 'function' | 'known-heads' | 'routed', items: number) => void;
  /**
   * `citus`: the tables are distributed (migration 1764500007000). Each group commit is split by the node that
   * holds each stream and sent as one routed call per node, run there; every inline projection needs its
   * `routed` form, and none may be a hook.
   */
  readonly engine?: DatabaseEngine;
}

export class PostgresEventStore implements EventStore {
  private readonly queue: GroupCommitQueue<PendingAppend, AppendResult>;
  /** Relaxed appends commit apart, so that a relaxed transaction holds relaxed appends only (null on Citus). */
  private readonly relaxedQueue: GroupCommitQueue<PendingAppend, AppendResult> | null;
  private readonly heads: HeadReader;
  /** Projections fused into the append statement (those with a `fused` form). */
  private readonly fused: readonly FusedProjection[];
  /** Projections run as hooks in the append's transaction (those with only `project`): a batch then opens one. */
  private readonly hooks: readonly HookProjection[];
  /** The append at known heads and the append function's call, each with the fused projections in it. */
  private readonly appendAtHeads: { name: string; text: string };
  private readonly appendFunction: { name: string; text: string };
  /** The same two for a relaxed batch (synchronous_commit off in its transaction). */
  private readonly relaxedAtHeads: { name: string; text: string };
  private readonly relaxedFunction: { name: string; text: string };
  /** Heads this process committed: an append that expects one of them is hashed here and only checked there. */
  private readonly known: KnownHeads | null;
  private readonly onAppendStatement?: PostgresEventStoreOptions['onAppendStatement'];
  private readonly log: LogReader;
  /** On Citus: each stream's node, and the inline projections' routed statements. */
  private readonly router: NodeRouter | null;
  private readonly routed: readonly RoutedProjection[];
  readonly engine: DatabaseEngine;

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresEventStoreOptions = {},
  ) {
    // A checked-out client whose connection the server ends (shutdown, DROP DATABASE … FORCE) emits
    // 'error'; the query in flight still rejects, so the event itself only needs a listener.
    pool.on('connect', (client) => client.on('error', () => undefined));
    pool.on('error', () => undefined);
    const inline = options.inline ?? [];
    this.engine = options.engine ?? 'postgres';
    const citus = this.engine === 'citus';
    this.heads = new HeadReader(pool, { perStream: citus });
    this.router = citus ? new NodeRouter(pool) : null;
    this.log = new LogReader(pool, this.engine, this.router);
    this.routed = inline.filter((projection): projection is RoutedProjection => projection.routed !== undefined);
    if (citus) {
      const unroutable = inline.find((projection) => projection.routed === undefined);
      if (unroutable) throw new TypeError(`inline projection ${unroutable.name} has no routed form: it cannot run on a Citus cluster`);
    }
    // On Citus every append is the routed function's (it hashes in SQL, on the node): no head is remembered.
    this.known = options.knownHeads === 0 || citus ? null : new KnownHeads(options.knownHeads);
    this.onAppendStatement = options.onAppendStatement;
    this.fused = inline.filter((projection): projection is FusedProjection => projection.fused !== undefined);
    this.hooks = inline.filter((projection): projection is HookProjection => projection.fused === undefined);
    const fused = this.fused.map((projection) => projection.fused);
    this.appendAtHeads = namedStatement('chronicle_append_at_heads', composeAppend('known-heads', fused));
    this.appendFunction = namedStatement('chronicle_append_fn', composeAppend('function', fused));
    this.relaxedAtHeads = namedStatement('chronicle_append_at_heads_relaxed', composeAppend('known-heads', fused, true));
    this.relaxedFunction = namedStatement('chronicle_append_fn_relaxed', composeAppend('function', fused, true));
    this.queue = new GroupCommitQueue(
      (batch) => this.commitBatch(batch, false),
      { ...DEFAULT_GROUP_COMMIT, lingerMs: citus ? CITUS_LINGER_MS : 0, ...options.groupCommit },
      options.onBatch,
    );
    // On Citus the routed call commits on its node in a transaction of its own: every append there is durable.
    this.relaxedQueue = citus
      ? null
      : new GroupCommitQueue((batch) => this.commitBatch(batch, true), { ...DEFAULT_GROUP_COMMIT, ...options.groupCommit }, options.onBatch);
  }

  append(streamId: string, events: readonly NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new RangeError('append needs at least one event'));
    try {
      // Data goes over once, as canonical JSON: it is both the jsonb stored and the text the chain hashes.
      const canon = events.map((e) => canonicalJson(e.data));
      const meta = events.map((e) => JSON.stringify(e.metadata ?? {}));
      assertStorable(streamId, canon, meta, events);
      const expected = options.expectedVersion ?? 'any';
      const pending: PendingAppend = {
        streamId,
        events,
        expected: expected === 'any' ? null : expected,
        keys: [...(options.idempotencyKeys ?? [])],
        canon,
        meta,
        context: options.context,
        relaxed: options.durability === 'relaxed',
      };
      const bytes = canon.reduce((sum, text) => sum + text.length, 0);
      return (pending.relaxed && this.relaxedQueue ? this.relaxedQueue : this.queue).submit(pending, bytes);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * One transaction for the batch. Items go sorted by stream id (same-stream items keep their order), so
   * concurrent batches lock streams in one order. A statement error that rolled the batch back before its
   * commit (bad data the checks missed, a failing inline projection) retries each item alone, so it fails
   * only its own append; a lost connection fails every item of the batch (none was acknowledged).
   */
  private async commitBatch(batch: readonly PendingAppend[], relaxed: boolean): Promise<BatchOutcome<AppendResult>> {
    if (this.router) return this.commitByNode(batch, this.router);
    return this.commitGroup(batch, (items) => this.transact(items, relaxed), !relaxed);
  }

  /**
   * Citus: the batch split by the node that holds each stream, one routed call per node, all at once. A node's
   * failure fails only its own appends (503 for its sessions while it is down); the others commit.
   */
  private async commitByNode(batch: readonly PendingAppend[], router: NodeRouter, attempt = 1): Promise<BatchOutcome<AppendResult>> {
    const nodes = await router.route(batch.map((item) => item.streamId));
    const groups = new Map<number, number[]>();
    batch.forEach((item, index) => {
      const node = nodes.get(item.streamId) as number;
      const group = groups.get(node);
      if (group) group.push(index);
      else groups.set(node, [index]);
    });
    const outcomes: BatchOutcome<AppendResult> = new Array(batch.length);
    await Promise.all(
      [...groups.values()].map(async (indexes) => {
        const items = indexes.map((index) => batch[index]);
        let groupOutcomes: BatchOutcome<AppendResult>;
        try {
          const node = nodes.get(items[0].streamId) as number;
          groupOutcomes = await this.commitGroup(items, (sorted) => this.transactRouted(sorted, node, router));
        } catch (error) {
          if ((error as { code?: string }).code === NOT_ON_THIS_NODE && attempt < 3) {
            // A shard moved since the stream was routed: look the streams up again and send them where they are now.
            for (const item of items) router.forget(item.streamId);
            groupOutcomes = await this.commitByNode(items, router, attempt + 1).catch((retryError: unknown) => items.map(() => ({ ok: false as const, error: retryError })));
          } else {
            // This node's appends fail (a worker down answers 503 for its sessions); the other nodes' commit.
            groupOutcomes = items.map((item) => ({ ok: false as const, error: items.length === 1 ? translate(error, item) : error }));
          }
        }
        indexes.forEach((index, position) => (outcomes[index] = groupOutcomes[position]));
      }),
    );
    return outcomes;
  }

  private async commitGroup(
    batch: readonly PendingAppend[],
    transact: (items: readonly PendingAppend[]) => Promise<ItemRow[]>,
    durable = true,
  ): Promise<BatchOutcome<AppendResult>> {
    const order = batch.map((_, index) => index).sort((a, b) => compareText(batch[a].streamId, batch[b].streamId) || a - b);
    const sorted = order.map((index) => batch[index]);
    let rows: ItemRow[];
    try {
      rows = await transact(sorted);
    } catch (error) {
      for (const item of batch) this.known?.forget(item.streamId);
      if ((error as { code?: string }).code === NOT_ON_THIS_NODE) throw error;
      if (batch.length === 1) throw translate(error, batch[0]);
      if (!isRetryableAlone(error)) throw error;
      const outcomes: BatchOutcome<AppendResult> = [];
      for (const item of batch) {
        try {
          const [row] = await transact([item]);
          this.learn(item, row);
          outcomes.push(toOutcome(item, row, durable));
        } catch (itemError) {
          this.known?.forget(item.streamId);
          outcomes.push({ ok: false, error: translate(itemError, item) });
        }
      }
      return outcomes;
    }
    const outcomes: BatchOutcome<AppendResult> = new Array(batch.length);
    rows.forEach((row, position) => {
      this.learn(sorted[position], row);
      outcomes[order[position]] = toOutcome(sorted[position], row, durable);
    });
    return outcomes;
  }

  /** The head an item's outcome shows: the new one after a write; after a conflict, none (the next append asks the database). */
  private learn(item: PendingAppend, row: ItemRow): void {
    if (!this.known) return;
    if (row.outcome === 'ok' && row.last_hash) this.known.set(item.streamId, { version: Number(row.version), hash: row.last_hash });
    else this.known.forget(item.streamId);
  }

  /**
   * The batch as one statement: the append (at known heads, or the function's call) with the fused
   * projections in it. Without hooks it is its own implicit transaction, committed before PostgreSQL answers:
   * one round trip, no BEGIN or COMMIT. A hook projection needs the transaction open: BEGIN goes with the
   * statement, the hooks run on the same client, then COMMIT.
   */
  private async transact(items: readonly PendingAppend[], relaxed = false): Promise<ItemRow[]> {
    const known = this.known;
    const head = (streamId: string) => known?.get(streamId);
    const atHeads = known !== null && atKnownHeads(items, head);
    const statement = relaxed ? (atHeads ? this.relaxedAtHeads : this.relaxedFunction) : atHeads ? this.appendAtHeads : this.appendFunction;
    const values = atHeads ? appendAtKnownHeadsValues(items, head) : appendBatchValues(items);
    for (const projection of this.fused) {
      // Nothing is sent yet: a projection that cannot give its values fails as a projection, so each append is
      // retried alone and only the one it cannot project fails.
      let own: readonly unknown[];
      try {
        own = projection.fused.values(items);
      } catch (error) {
        throw new InlineProjectionError(projection.name, error);
      }
      if (own.length !== projection.fused.valueCount) {
        throw new InlineProjectionError(projection.name, new RangeError(`${own.length} values for its ${projection.fused.valueCount} placeholders`));
      }
      values.push(...own);
    }
    const append = { ...statement, values };
    this.onAppendStatement?.(atHeads ? 'known-heads' : 'function', items.length);
    if (this.hooks.length === 0) return this.commitAlone(append);
    const client = await this.pool.connect();
    const tx = new PipelinedTransaction(client);
    try {
      // The relaxed statement turns synchronous_commit off for the transaction it runs in (this one).
      const [, appendResult] = await tx.send([{ text: 'BEGIN' }, append]);
      const rows = appendResult.rows as ItemRow[];
      const appended: AppendedStream[] = [];
      for (const row of rows) {
        if (row.outcome !== 'ok') continue;
        const item = items[row.item - 1];
        appended.push({ streamId: item.streamId, events: item.events, version: Number(row.version), context: item.context });
      }
      for (const projection of appended.length > 0 ? this.hooks : []) {
        await projection.project(client, appended).catch((error: unknown) => {
          throw new InlineProjectionError(projection.name, error);
        });
      }
      await tx.commit();
      client.release();
      return rows;
    } catch (error) {
      if (!tx.committing) await client.query('ROLLBACK').catch(() => undefined);
      // A client whose transaction state is unknown is destroyed, never returned to the pool.
      client.release(error as Error);
      throw !tx.committing || tx.rolledBack || error instanceof InlineProjectionError ? error : new CommitOutcomeUnknown(error);
    }
  }

  /**
   * Citus: the batch of one node as one call of `chronicle_append_routed`, routed by its first stream to the
   * node that holds every stream of it and run there in its own implicit transaction.
   */
  private async transactRouted(items: readonly PendingAppend[], node: number, router: NodeRouter): Promise<ItemRow[]> {
    const values: unknown[] = [items[0].streamId, ...appendBatchValues(items)];
    const perItem: unknown[][] = items.map(() => []);
    for (const projection of this.routed) {
      items.forEach((item, index) => {
        try {
          perItem[index].push(projection.routed.value(item) ?? null);
        } catch (error) {
          throw new InlineProjectionError(projection.name, error);
        }
      });
    }
    values.push(
      this.routed.map((projection) => projection.routed.table),
      this.routed.map((projection) => projection.routed.text),
      JSON.stringify(perItem),
    );
    this.onAppendStatement?.('routed', items.length);
    // Sent to the node itself; where it cannot be reached from here, through this process's node, which forwards it.
    const direct = await router.poolFor(node);
    const client = await direct.connect().catch((error: unknown) => {
      if (direct === this.pool) throw error;
      // Its address may have changed (a failover): the next batch looks it up again.
      router.unreachable(node, direct, error);
      return this.pool.connect();
    });
    return this.commitAlone({ ...ROUTED_APPEND, values }, client);
  }

  /** One append statement in its own implicit transaction: committed when PostgreSQL answers it. */
  private async commitAlone(statement: pg.QueryConfig, connected?: pg.PoolClient): Promise<ItemRow[]> {
    // A connection that cannot be had sent nothing: that failure is known.
    const client = connected ?? (await this.pool.connect());
    try {
      const { rows } = await client.query<ItemRow>(statement);
      client.release();
      return rows;
    } catch (error) {
      const refused = isStatementError(error);
      // A client whose last statement's fate is unknown is destroyed, never returned to the pool.
      client.release(refused ? undefined : (error as Error));
      // A statement PostgreSQL refused rolled back: known. Anything else (the connection broke) may have committed.
      throw refused ? error : new CommitOutcomeUnknown(error);
    }
  }

  async readStream(streamId: string, range: { from?: number; to?: number } = {}): Promise<StoredEvent[]> {
    const result = await this.pool.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events e
        WHERE e.stream_id = $1 AND e.version >= $2 AND ($3::bigint IS NULL OR e.version <= $3::bigint)
        ORDER BY e.version`,
      [streamId, range.from ?? 1, range.to ?? null],
    );
    return result.rows.map(toStoredEvent);
  }

  async readStreamData(streamId: string, range: { from?: number; to?: number } = {}): Promise<StreamDataEvent[]> {
    // float8: a JavaScript number as pg parses it, exact for every version a stream can reach (int8 comes as text).
    const result = await this.pool.query<StreamDataEvent>({
      name: 'chronicle_read_stream_data',
      text: `SELECT e.version::float8 AS version, e.type, e.data, (e.metadata->>'schema')::int AS schema FROM events e
              WHERE e.stream_id = $1 AND e.version >= $2 AND ($3::bigint IS NULL OR e.version <= $3::bigint)
              ORDER BY e.version`,
      values: [streamId, range.from ?? 1, range.to ?? null],
    });
    return result.rows;
  }

  /** The gap-safe read of the log, per origin (`LogReader`): an event committed late is never skipped. */
  async readAll(options: ReadLogOptions = {}): Promise<ReadAllResult> {
    const page = await this.log.page<EventRow>(EVENT_COLUMNS, options.after ?? START, options.limit ?? 1000);
    return { events: page.rows.map(toStoredEvent), checkpoint: page.checkpoint, more: page.more };
  }

  async readPositions(options: ReadLogOptions = {}): Promise<ReadPositionsResult> {
    const page = await this.log.page<LogRow>(LOG_POSITION_COLUMNS, options.after ?? START, options.limit ?? 1000);
    return {
      positions: page.rows.map((row) => ({
        streamId: row.stream_id,
        version: Number(row.version),
        origin: row.origin,
        globalPosition: row.global_position,
        transactionId: row.transaction_id,
      })),
      checkpoint: page.checkpoint,
      more: page.more,
    };
  }

  countPast(after: LogCursor, cap: number): Promise<number> {
    return this.log.countPast(after, cap);
  }

  head(streamId: string): Promise<StreamHead | null> {
    return this.heads.read(streamId);
  }

  async findIdempotencyKey(streamId: string, key: string): Promise<number | null> {
    const result = await this.pool.query(
      `SELECT version::text FROM idempotency_keys WHERE stream_id = $1 AND key = $2`,
      [streamId, key],
    );
    return result.rows[0] ? Number(result.rows[0].version) : null;
  }

  async close(): Promise<void> {
    await this.router?.close();
    await this.pool.end();
  }
}
