import pg from 'pg';
import { canonicalJson } from '#domain';
import {
  type AppendOptions,
  type AppendResult,
  type AppendedStream,
  type InlineProjection,
  type Checkpoint,
  type EventStore,
  type NewEvent,
  type ReadAllResult,
  type ReadPositionsResult,
  START,
  type StoredEvent,
  type StreamHead,
  type InlineStatement,
} from './event-store.js';
import { InlineProjectionError } from './inline-projection.error.js';
import { HeadReader } from './head-reader.js';
import { PipelinedTransaction } from './pipelined-transaction.js';
import { CommitOutcomeUnknown, compareText, isRetryableAlone, type ItemRow, type PendingAppend, toOutcome, translate } from './append-batch.outcomes.js';
import { assertStorable } from './storable-text.js';
import { type BatchOutcome, DEFAULT_GROUP_COMMIT, type GroupCommitLimits, GroupCommitQueue } from './group-commit.queue.js';
import { APPEND_AT_KNOWN_HEADS, APPEND_BATCH, appendAtKnownHeadsValues, appendBatchValues, atKnownHeads } from './append-statements.js';
import { KnownHeads } from './known-heads.js';

// Qualified names matter: ORDER BY would otherwise bind to these text casts and sort "10" before "2".
const EVENT_COLUMNS = `e.stream_id, e.version::text AS version, e.global_position::text AS global_position, e.type,
  e.data, e.metadata, e.hash, e.recorded_at, e.transaction_id::text AS transaction_id`;

interface EventRow {
  stream_id: string;
  version: string;
  global_position: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  hash: string;
  recorded_at: Date;
  transaction_id: string;
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
    transactionId: row.transaction_id,
  };
}

/**
 * BEGIN, then generic plans for the transaction's statements. Their arrays are as long as the batch, so
 * PostgreSQL's plan cache judges a custom plan cheaper than the generic one (estimated at 10 rows) and plans
 * again on every call: 0.17 ms per transaction for the live NOTIFY alone at 4 clients, more than it executes.
 */
const BEGIN_WRITE = [
  { text: 'BEGIN', values: [] },
  { name: 'chronicle_generic_plans', text: 'SET LOCAL plan_cache_mode = force_generic_plan', values: [] },
] as const;

export interface PostgresEventStoreOptions {
  /** Read models written in each append's transaction (the session summary, the live NOTIFY). */
  readonly inline?: readonly InlineProjection<pg.ClientBase>[];
  readonly groupCommit?: Partial<GroupCommitLimits>;
  /** Told the size of every batch sent (a histogram's input). */
  readonly onBatch?: (size: number) => void;
  /** Stream heads remembered for appends at a known head (entries; 0 turns it off: every append hashes in SQL). */
  readonly knownHeads?: number;
  /** Told which append statement each transaction sent: the function (hashes in SQL) or the one at known heads. */
  readonly onAppendStatement?: (statement: 'function' | 'known-heads', items: number) => void;
}

export class PostgresEventStore implements EventStore {
  private readonly queue: GroupCommitQueue<PendingAppend, AppendResult>;
  private readonly inline: readonly InlineProjection<pg.ClientBase>[];
  private readonly heads: HeadReader;
  /** Every inline projection is declarative and guarded: a batch whose items all expect a version takes one write. */
  private readonly guardedOnly: boolean;
  /** Heads this process committed: an append that expects one of them is hashed here and only checked there. */
  private readonly known: KnownHeads | null;
  private readonly onAppendStatement?: PostgresEventStoreOptions['onAppendStatement'];

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresEventStoreOptions = {},
  ) {
    // A checked-out client whose connection the server ends (shutdown, DROP DATABASE … FORCE) emits
    // 'error'; the query in flight still rejects, so the event itself only needs a listener.
    pool.on('connect', (client) => client.on('error', () => undefined));
    pool.on('error', () => undefined);
    this.inline = options.inline ?? [];
    this.heads = new HeadReader(pool);
    this.known = options.knownHeads === 0 ? null : new KnownHeads(options.knownHeads);
    this.onAppendStatement = options.onAppendStatement;
    this.guardedOnly = this.inline.length > 0 && this.inline.every((projection) => projection.statements !== undefined && projection.guarded === true);
    this.queue = new GroupCommitQueue(
      (batch) => this.commitBatch(batch),
      { ...DEFAULT_GROUP_COMMIT, ...options.groupCommit },
      options.onBatch,
    );
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
      };
      const bytes = canon.reduce((sum, text) => sum + text.length, 0);
      return this.queue.submit(pending, bytes);
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
  private async commitBatch(batch: readonly PendingAppend[]): Promise<BatchOutcome<AppendResult>> {
    const order = batch.map((_, index) => index).sort((a, b) => compareText(batch[a].streamId, batch[b].streamId) || a - b);
    const sorted = order.map((index) => batch[index]);
    let rows: ItemRow[];
    try {
      rows = await this.transact(sorted);
    } catch (error) {
      for (const item of batch) this.known?.forget(item.streamId);
      if (batch.length === 1) throw translate(error, batch[0]);
      if (!isRetryableAlone(error)) throw error;
      const outcomes: BatchOutcome<AppendResult> = [];
      for (const item of batch) {
        try {
          const [row] = await this.transact([item]);
          this.learn(item, row);
          outcomes.push(toOutcome(item, row));
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
      outcomes[order[position]] = toOutcome(sorted[position], row);
    });
    return outcomes;
  }

  /** The head an item's outcome shows: the new one after a write; after a conflict, none (the next append asks the database). */
  private learn(item: PendingAppend, row: ItemRow): void {
    if (!this.known) return;
    if (row.outcome === 'ok' && row.last_hash) this.known.set(item.streamId, { version: Number(row.version), hash: row.last_hash });
    else this.known.forget(item.streamId);
  }

  private async transact(items: readonly PendingAppend[]): Promise<ItemRow[]> {
    const known = this.known;
    const head = (streamId: string) => known?.get(streamId);
    const atHeads = known !== null && atKnownHeads(items, head);
    const append = atHeads
      ? { ...APPEND_AT_KNOWN_HEADS, values: appendAtKnownHeadsValues(items, head) }
      : { ...APPEND_BATCH, values: appendBatchValues(items) };
    this.onAppendStatement?.(atHeads ? 'known-heads' : 'function', items.length);
    if (this.inline.length === 0) {
      const result = await this.pool.query<ItemRow>(append);
      return result.rows;
    }
    const client = await this.pool.connect();
    const tx = new PipelinedTransaction(client);
    try {
      if (this.guardedOnly && items.every((item) => item.expected !== null)) {
        // Every item says the version it expects, so the version it would reach is known before the append
        // answers: the guarded statements go with BEGIN, the append and COMMIT in one write, one round trip.
        const attempted: AppendedStream[] = items.map((item) => ({
          streamId: item.streamId,
          events: item.events,
          version: (item.expected as number) + item.events.length,
          context: item.context,
        }));
        const statements = this.inline.flatMap((projection) =>
          (projection.statements?.(attempted) ?? []).map((statement) => ({ projection: projection.name, statement })),
        );
        const result = await tx.sendAndCommit([...BEGIN_WRITE, append], statements);
        client.release();
        return result.rows as ItemRow[];
      }
      const [, , appendResult] = await tx.send([...BEGIN_WRITE, append]);
      const rows = appendResult.rows as ItemRow[];
      const appended: AppendedStream[] = [];
      for (const row of rows) {
        if (row.outcome !== 'ok') continue;
        const item = items[row.item - 1];
        appended.push({ streamId: item.streamId, events: item.events, version: Number(row.version), context: item.context });
      }
      const statements: { projection: string; statement: InlineStatement }[] = [];
      for (const projection of appended.length > 0 ? this.inline : []) {
        if (projection.project) {
          await projection.project(client, appended).catch((error: unknown) => {
            throw new InlineProjectionError(projection.name, error);
          });
        } else {
          for (const statement of projection.statements(appended)) statements.push({ projection: projection.name, statement });
        }
      }
      // The declared statements and the COMMIT leave together; a failing statement turns the COMMIT into a
      // rollback (PostgreSQL answers it with ROLLBACK), so nothing of the batch is kept.
      await tx.commitAfter(statements);
      client.release();
      return rows;
    } catch (error) {
      if (!tx.committing) await client.query('ROLLBACK').catch(() => undefined);
      // A client whose transaction state is unknown is destroyed, never returned to the pool.
      client.release(error as Error);
      const known = !tx.committing || tx.rolledBack || error instanceof InlineProjectionError;
      throw known ? error : new CommitOutcomeUnknown(error);
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

  /**
   * Gap-safe global read: only transactions older than every transaction still in flight
   * (`pg_snapshot_xmin`) are visible, so an event committed late is never skipped.
   */
  async readAll(options: { after?: Checkpoint; limit?: number } = {}): Promise<ReadAllResult> {
    const after = options.after ?? START;
    const result = await this.pool.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events e
        WHERE e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
          AND (e.transaction_id, e.global_position) > ($1::text::xid8, $2::bigint)
        ORDER BY e.transaction_id, e.global_position
        LIMIT $3`,
      [after.transactionId, after.globalPosition, options.limit ?? 1000],
    );
    const events = result.rows.map(toStoredEvent);
    const last = events.at(-1);
    return {
      events,
      checkpoint: last ? { transactionId: last.transactionId, globalPosition: last.globalPosition } : after,
    };
  }

  async readPositions(options: { after?: Checkpoint; limit?: number } = {}): Promise<ReadPositionsResult> {
    const after = options.after ?? START;
    const result = await this.pool.query<{ stream_id: string; version: string; global_position: string; transaction_id: string }>({
      name: 'chronicle_read_positions',
      text: `SELECT e.stream_id, e.version::text AS version, e.global_position::text AS global_position,
                    e.transaction_id::text AS transaction_id
               FROM events e
              WHERE e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
                AND (e.transaction_id, e.global_position) > ($1::text::xid8, $2::bigint)
              ORDER BY e.transaction_id, e.global_position
              LIMIT $3`,
      values: [after.transactionId, after.globalPosition, options.limit ?? 1000],
    });
    const positions = result.rows.map((row) => ({
      streamId: row.stream_id,
      version: Number(row.version),
      globalPosition: row.global_position,
      transactionId: row.transaction_id,
    }));
    const last = positions.at(-1);
    return {
      positions,
      checkpoint: last ? { transactionId: last.transactionId, globalPosition: last.globalPosition } : after,
    };
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
    await this.pool.end();
  }
}
