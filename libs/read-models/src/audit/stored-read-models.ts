import type pg from 'pg';
import { cursorPassed, isSealedSnapshotText, openSnapshotText, type SessionKeyring, type StoredEvent } from '#event-store';
import { toSessionStreamId } from '#domain';
import { readCheckpoint } from '../projection-checkpoints.js';
import { SESSION_INDEX } from '../session-index/session-index.projector.js';
import { SNAPSHOT_SCHEMA_VERSION } from '../snapshot-store.js';
import type { StoredIndexRow } from '../session-index/index-row.builder.js';
import { openIndexRow, openSummaryData, type SealedRow } from '../read-model-content.js';
import { tallied, type WorkTally } from '../work-tally.js';

export async function readSnapshots(pool: pg.Pool, streamId: string, keyring: SessionKeyring | null = null) {
  const result = await pool.query<{ version: string; state: string }>(
    // Qualified: a bare `ORDER BY version` binds to the text output column and sorts '10' before '9'.
    `SELECT version::text, state::text AS state FROM session_snapshots
      WHERE stream_id = $1 AND schema_version = $2 ORDER BY session_snapshots.version`,
    [streamId, SNAPSHOT_SCHEMA_VERSION],
  );
  const opened = await openedSnapshots(keyring, streamId, result.rows);
  return opened.map((row) => ({ version: Number(row.version), state: row.state === null ? null : (JSON.parse(row.state) as unknown) }));
}

/**
 * Snapshot rows with their state texts opened (sealed ones with the session's key; null when it is gone). The
 * opening is added to `tally` when one is given; the key's lookup is not.
 */
export async function openedSnapshots<Row extends { readonly state: string }>(
  keyring: SessionKeyring | null,
  streamId: string,
  rows: readonly Row[],
  tally?: WorkTally,
): Promise<(Omit<Row, 'state'> & { readonly state: string | null })[]> {
  const sealed = rows.some((row) => isSealedSnapshotText(row.state));
  const key = sealed && keyring !== null ? await keyring.keyFor(streamId) : null;
  return tallied(tally, () => rows.map((row) => ({ ...row, state: openSnapshotText(key?.key ?? null, streamId, row.state) })));
}

/** The stream's data key to open its stored read models with (null: no keyring, no key, or erased). */
export async function readModelKey(keyring: SessionKeyring | null | undefined, streamId: string): Promise<Buffer | null> {
  return keyring ? ((await keyring.keyFor(streamId))?.key ?? null) : null;
}

export async function readSummaryRow(pool: pg.Pool, streamId: string, key: Buffer | null = null) {
  const result = await pool.query(`SELECT version::text, data FROM session_summaries WHERE stream_id = $1`, [streamId]);
  const row = result.rows[0];
  return row ? { version: Number(row.version), data: openSummaryData(key, streamId, row.data) } : null;
}

export async function readIndexRow(pool: pg.Pool, sessionId: string, key: Buffer | null = null): Promise<StoredIndexRow | null> {
  const streamId = toSessionStreamId(sessionId);
  const result = await pool.query(
    `SELECT version::text, title, parent_session_id, status, archived, created_at, last_activity_at, message_count,
            pending_turn, markers, sealed
       FROM ${SESSION_INDEX} WHERE stream_id = $1`,
    [streamId],
  );
  const row = result.rows[0];
  return row ? openIndexRow(key, streamId, indexRowFromColumns(row)) : null;
}

/**
 * A `session_index` row as read (snake_case columns) → the builder's shape, its content as stored (`sealed` when
 * a key sealed it: `openIndexRow` puts it back): the one mapping, for every audit.
 */
export function indexRowFromColumns(row: Record<string, unknown>): SealedRow<StoredIndexRow> {
  return {
    version: Number(row.version),
    title: row.title,
    parentSessionId: row.parent_session_id,
    status: row.status,
    archived: row.archived,
    createdAt: row.created_at,
    lastActivityAt: row.last_activity_at,
    messageCount: row.message_count,
    pendingTurn: row.pending_turn,
    markers: row.markers,
    ...(typeof row.sealed === 'string' ? { sealed: row.sealed } : {}),
  } as SealedRow<StoredIndexRow>;
}

/** Whether the index projector's checkpoint has passed `event` (then the index must hold the session at least at its version). */
export async function indexPassed(pool: pg.Pool, event: StoredEvent | undefined): Promise<boolean> {
  if (!event) return false;
  return cursorPassed(await readCheckpoint(pool, SESSION_INDEX), event);
}
