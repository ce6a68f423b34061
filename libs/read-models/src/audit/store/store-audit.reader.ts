import type pg from 'pg';
import { fromSessionStreamId, SESSION_STREAM_PREFIX } from '#domain';
import { cursorPassed, queryAcrossSessions } from '#event-store';
import { readCheckpoint } from '../../projection-checkpoints.js';
import { indexRowFromColumns } from '../stored-read-models.js';
import { SESSION_INDEX } from '../../session-index/session-index.projector.js';
import { SNAPSHOT_SCHEMA_VERSION } from '../../snapshot-store.js';
import type { StreamPart } from './audit-batch.processor.js';

/** A session stream's head as the audit found it: its events are read up to this version, no further. */
export interface AuditHead {
  readonly streamId: string;
  readonly sessionId: string;
  readonly version: number;
  readonly lastHash: string;
}

export type StoredBegin = Omit<NonNullable<StreamPart['begin']>, 'head' | 'streamId' | 'dataKey'>;

/** Sessions and events the audit will cover (for progress and ETA); `since` keeps streams changed at or after it. */
export async function countStreams(pool: pg.Pool, since: Date | null): Promise<{ sessions: number; events: number }> {
  const result = await queryAcrossSessions(pool, {
    text: `SELECT count(*)::int AS sessions, coalesce(sum(version), 0)::float8 AS events FROM streams
            WHERE starts_with(stream_id, $1) AND ($2::timestamptz IS NULL OR updated_at >= $2)`,
    values: [SESSION_STREAM_PREFIX, since],
  });
  return { sessions: result.rows[0].sessions, events: result.rows[0].events };
}

/** One keyset page of stream heads, in stream id order. */
export async function readHeads(pool: pg.Pool, after: string, since: Date | null, limit: number): Promise<AuditHead[]> {
  const result = await queryAcrossSessions(pool, {
    text: `SELECT stream_id, version::int, last_hash FROM streams
            WHERE starts_with(stream_id, $1) AND stream_id > $2 AND ($3::timestamptz IS NULL OR updated_at >= $3)
            ORDER BY stream_id LIMIT $4`,
    values: [SESSION_STREAM_PREFIX, after, since, limit],
    rowMode: 'array',
  });
  return result.rows.map(([streamId, version, lastHash]) => ({
    streamId,
    sessionId: fromSessionStreamId(streamId) as string,
    version,
    lastHash,
  }));
}

const columns = (heads: readonly AuditHead[]) => [heads.map((h) => h.streamId), heads.map((h) => h.version)];

/**
 * Everything stored about these sessions, text left unparsed. The index checkpoint is read before the index
 * rows: once it has passed a stream's last event, any row read afterwards is at least that new. On Citus each
 * read spans the batch's shards.
 */
export async function readStoredModels(pool: pg.Pool, heads: readonly AuditHead[]): Promise<Map<string, StoredBegin>> {
  const [ids, versions] = columns(heads);
  const checkpoint = await readCheckpoint(pool, SESSION_INDEX);
  const [lastEvents, snapshots, summaries, index] = await Promise.all([
    queryAcrossSessions(pool, {
      text: `SELECT h.s, e.origin::text, e.transaction_id::text, e.global_position::text
               FROM unnest($1::text[], $2::bigint[]) AS h(s, v)
               JOIN events e ON e.stream_id = h.s AND e.version = h.v`,
      values: [ids, versions],
      rowMode: 'array',
    }),
    queryAcrossSessions(pool, {
      text: `SELECT stream_id, version::int, state::text FROM session_snapshots
              WHERE stream_id = ANY($1::text[]) AND schema_version = $2 ORDER BY stream_id, session_snapshots.version`,
      values: [ids, SNAPSHOT_SCHEMA_VERSION],
      rowMode: 'array',
    }),
    queryAcrossSessions(pool, {
      text: `SELECT stream_id, version::int, data::text FROM session_summaries WHERE stream_id = ANY($1::text[])`,
      values: [ids],
      rowMode: 'array',
    }),
    queryAcrossSessions(pool, {
      text: `SELECT stream_id, version::int, title, parent_session_id, status, archived, created_at, last_activity_at,
                    message_count, pending_turn, markers, sealed FROM ${SESSION_INDEX} WHERE stream_id = ANY($1::text[])`,
      values: [ids],
    }),
  ]);
  const passed = {
    rows: lastEvents.rows.map(([s, origin, transactionId, globalPosition]) => [s, cursorPassed(checkpoint, { origin, transactionId, globalPosition })]),
  };
  const stored = new Map<string, StoredBegin & { snapshots: { version: number; state: string }[] }>();
  for (const h of heads) stored.set(h.streamId, { snapshots: [], summary: null, index: null, indexCaughtUp: false });
  const of = (streamId: string) => stored.get(streamId) as StoredBegin & { snapshots: { version: number; state: string }[] };
  for (const [s, caughtUp] of passed.rows) stored.set(s, { ...of(s), indexCaughtUp: Boolean(caughtUp) });
  for (const [s, version, state] of snapshots.rows) of(s).snapshots.push({ version, state });
  for (const [s, version, data] of summaries.rows) stored.set(s, { ...of(s), summary: { version, data } });
  for (const row of index.rows) stored.set(row.stream_id, { ...of(row.stream_id), index: indexRowFromColumns(row) });
  return stored;
}

/**
 * A batch's events as packed texts (`packed-events.format.ts`), in part and version order, built by PostgreSQL:
 * one value per ~256 events instead of five per event. The data is the json column's text, the canonical text
 * its link hashed, so the chain is checked on it as it is.
 */
export interface PackedEvents {
  /** The batch's lines in order, in pieces of at most `PACKED_PIECE` events (none when it has no event). */
  readonly texts: readonly string[];
  readonly count: number;
  /** The last version read (0 when none). */
  readonly last: number;
}

/**
 * Events per packed piece: ~60 KB of text, under V8's large-object size (128 KB). A large object still being
 * checked when a scavenge comes is promoted to the old large-object space, which only a full collection frees
 * (bench/README.md); a piece that survives a scavenge is copied instead, and freed by the next.
 */
export const PACKED_PIECE = 256;

/** A text field as it is, or `?` if it holds a separator (strpos twice costs a third of one `translate`). */
const guarded = (column: string) => `CASE WHEN strpos(${column}, E'\\x1e') = 0 AND strpos(${column}, E'\\x1f') = 0 THEN ${column} ELSE '?' END`;

/**
 * The rows of `from` (which names the part `k` and the event `e`) as packed pieces. The lines are joined in part
 * and version order, said in the aggregate itself, and the pieces in the same order by the outer ORDER BY (a
 * subquery's ORDER BY is not a guarantee): a line out of order would break the chain check. PostgreSQL sorts once
 * for the grouping, and `concat_ws` builds a line in one call where `||` copied it once per field.
 */
async function packed(pool: pg.Pool, from: string, values: unknown[]): Promise<PackedEvents> {
  const result = await queryAcrossSessions(pool, {
    text: `SELECT string_agg(concat_ws(E'\\x1f', k, e.version, ${guarded('e.hash')}, ${guarded('e.type')}, coalesce(e.metadata->>'schema', '1'), e.data), E'\\x1e' ORDER BY e.version),
                  count(*)::int, max(e.version)::int
             ${from}
            GROUP BY k, (e.version - 1) / ${PACKED_PIECE}
            ORDER BY k, (e.version - 1) / ${PACKED_PIECE}`,
    values,
    rowMode: 'array',
  });
  const rows = result.rows as [string, number, number][];
  return { texts: rows.map((row) => row[0]), count: rows.reduce((n, row) => n + row[1], 0), last: rows.at(-1)?.[2] ?? 0 };
}

/** Every event of these (short) streams up to their heads; part i is heads[i - 1]. */
export function readStreams(pool: pg.Pool, heads: readonly AuditHead[]): Promise<PackedEvents> {
  return packed(
    pool,
    `FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS h(s, v, k)
       JOIN events e ON e.stream_id = h.s AND e.version <= h.v`,
    columns(heads),
  );
}

/** One keyset page of a long stream (part 1): at most `limit` versions after `after`, up to `to`. */
export function readStreamPage(pool: pg.Pool, streamId: string, after: number, to: number, limit: number): Promise<PackedEvents> {
  return packed(
    pool,
    `FROM (SELECT 1 AS k, version, hash, type, metadata, data FROM events
            WHERE stream_id = $1 AND version > $2 AND version <= $3 ORDER BY version LIMIT $4) e`,
    [streamId, after, to, limit],
  );
}
