import pg from 'pg';
import { canonicalJson } from '#domain';
import {
  type AppendOptions,
  type AppendResult,
  type Checkpoint,
  ConcurrencyError,
  type EventStore,
  IdempotencyKeyTaken,
  type NewEvent,
  type ReadAllResult,
  START,
  type StoredEvent,
  type StreamHead,
} from './event-store.js';

/*
 * One statement, one round trip, one transaction: check the expected version (row lock on the
 * stream), chain the hashes, insert the events, move the stream head, record idempotency keys
 * and upsert the summary. A concurrent writer with the same expected version either waits on the
 * stream row and then fails the version check, or (new stream) hits the events primary key.
 */
const APPEND_SQL = `
WITH RECURSIVE
head AS (SELECT version, last_hash FROM streams WHERE stream_id = $1 FOR UPDATE),
cur AS (
  SELECT COALESCE((SELECT version FROM head), 0)::bigint AS version,
         COALESCE((SELECT last_hash FROM head), '') AS last_hash
),
ok AS (SELECT version, last_hash FROM cur WHERE $2::bigint IS NULL OR version = $2::bigint),
input AS (
  SELECT t.ord, t.type, t.canon, t.metadata, ok.version + t.ord AS version
  FROM ok, unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS t(type, canon, metadata, ord)
),
chain AS (
  SELECT 0::bigint AS ord, (SELECT last_hash FROM ok) AS hash
  UNION ALL
  SELECT i.ord, encode(sha256(convert_to(
           c.hash || '{"data":' || i.canon || ',"type":' || to_json(i.type)::text || ',"version":' || i.version || '}',
           'UTF8')), 'hex')
  FROM chain c JOIN input i ON i.ord = c.ord + 1
),
ins AS (
  INSERT INTO events (stream_id, version, type, data, metadata, hash)
  SELECT $1, i.version, i.type, i.canon::jsonb, i.metadata::jsonb, c.hash FROM input i JOIN chain c ON c.ord = i.ord
  RETURNING version, global_position
),
st AS (
  INSERT INTO streams (stream_id, version, last_hash)
  SELECT $1, ok.version + cardinality($3::text[]), (SELECT hash FROM chain ORDER BY ord DESC LIMIT 1) FROM ok
  ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, last_hash = EXCLUDED.last_hash, updated_at = now()
  RETURNING version, last_hash
),
keys AS (
  INSERT INTO idempotency_keys (stream_id, key, version)
  SELECT $1, k, ok.version + cardinality($3::text[]) FROM ok, unnest($6::text[]) AS k
  RETURNING key
),
summary AS (
  INSERT INTO session_summaries (stream_id, version, data)
  SELECT $1, ok.version + cardinality($3::text[]), $7::jsonb FROM ok WHERE $7::jsonb IS NOT NULL
  ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, data = EXCLUDED.data, updated_at = now()
  RETURNING 1
),
notified AS (SELECT pg_notify($8::text, $1 || ' ' || version::text) FROM st WHERE $8::text IS NOT NULL)
SELECT (SELECT version FROM cur)::text AS current_version,
       (SELECT version FROM st)::text AS new_version,
       (SELECT last_hash FROM st) AS last_hash,
       (SELECT array_agg(global_position::text ORDER BY version) FROM ins) AS positions,
       (SELECT count(*) FROM keys) AS key_count,
       (SELECT count(*) FROM summary) AS summary_count,
       (SELECT count(*) FROM notified) AS notified`;

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

export class PostgresEventStore implements EventStore {
  constructor(private readonly pool: pg.Pool) {
    // A checked-out client whose connection the server ends (shutdown, DROP DATABASE … FORCE) emits
    // 'error'; the query in flight still rejects, so the event itself only needs a listener.
    pool.on('connect', (client) => client.on('error', () => undefined));
    pool.on('error', () => undefined);
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('append needs at least one event');
    const expected = options.expectedVersion ?? 'any';
    // Data goes over once, as canonical JSON: it is both the jsonb stored and the text the chain hashes.
    const params = [
      streamId,
      expected === 'any' ? null : expected,
      events.map((e) => e.type),
      events.map((e) => canonicalJson(e.data)),
      events.map((e) => JSON.stringify(e.metadata ?? {})),
      [...(options.idempotencyKeys ?? [])],
      options.summary === undefined ? null : JSON.stringify(options.summary),
      options.notify ?? null,
    ];
    try {
      const result = options.holdOpen
        ? await this.appendHeldOpen(params, options.holdOpen)
        : await this.pool.query(APPEND_SQL, params);
      const row = result.rows[0];
      if (row.new_version === null) throw new ConcurrencyError(streamId, expected, Number(row.current_version));
      return {
        streamId,
        version: Number(row.new_version),
        globalPositions: row.positions,
        lastHash: row.last_hash,
      };
    } catch (error) {
      throw this.translate(error, streamId, expected);
    }
  }

  /** The test seam of `holdOpen`: the same statement inside an explicit transaction kept open. */
  private async appendHeldOpen(params: unknown[], holdOpen: () => Promise<void>): Promise<pg.QueryResult> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await client.query(APPEND_SQL, params);
      await holdOpen();
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      // A client whose transaction state is unknown is destroyed, never returned to the pool.
      client.release(error as Error);
      throw error;
    }
  }

  private translate(error: unknown, streamId: string, expected: AppendOptions['expectedVersion']): unknown {
    const pgError = error as { code?: string; constraint?: string };
    if (pgError.code !== '23505') return error;
    if (pgError.constraint === 'idempotency_keys_pkey') return new IdempotencyKeyTaken(streamId);
    return new ConcurrencyError(streamId, expected ?? 'any', null);
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

  async head(streamId: string): Promise<StreamHead | null> {
    const result = await this.pool.query(
      `SELECT version::text, last_hash, archived FROM streams WHERE stream_id = $1`,
      [streamId],
    );
    const row = result.rows[0];
    return row ? { version: Number(row.version), lastHash: row.last_hash, archived: row.archived } : null;
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
