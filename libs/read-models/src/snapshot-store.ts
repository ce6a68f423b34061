import type pg from 'pg';
import type { SessionState } from '#domain';

/**
 * Bump when the fold state's shape changes: older snapshots are then ignored (and rebuilt from events),
 * never misread.
 */
export const SNAPSHOT_SCHEMA_VERSION = 5;

export interface Snapshot {
  readonly version: number;
  readonly state: SessionState;
}

/** Projection state stored off the hot path (`session_snapshots`). */
export class SnapshotStore {
  constructor(private readonly pool: pg.Pool) {}

  async latest(streamId: string, atOrBefore?: number): Promise<Snapshot | null> {
    const result = await this.pool.query(
      `SELECT s.version::text AS version, s.state FROM session_snapshots s
        WHERE s.stream_id = $1 AND s.schema_version = $2 AND ($3::bigint IS NULL OR s.version <= $3::bigint)
        ORDER BY s.version DESC LIMIT 1`,
      [streamId, SNAPSHOT_SCHEMA_VERSION, atOrBefore ?? null],
    );
    const row = result.rows[0];
    return row ? { version: Number(row.version), state: row.state as SessionState } : null;
  }

  async latestVersion(streamId: string): Promise<number> {
    const result = await this.pool.query(
      `SELECT max(version)::text AS version FROM session_snapshots WHERE stream_id = $1 AND schema_version = $2`,
      [streamId, SNAPSHOT_SCHEMA_VERSION],
    );
    return Number(result.rows[0]?.version ?? 0);
  }

  /** Keeps the two newest snapshots of the stream (time travel folds from the nearest one below). */
  async save(streamId: string, version: number, state: SessionState): Promise<void> {
    await this.pool.query(
      `WITH saved AS (
         INSERT INTO session_snapshots (stream_id, version, schema_version, state)
         VALUES ($1, $2, $3, $4::json) ON CONFLICT (stream_id, version) DO NOTHING RETURNING 1
       )
       DELETE FROM session_snapshots WHERE stream_id = $1 AND version < (
         SELECT min(version) FROM (SELECT version FROM session_snapshots WHERE stream_id = $1
                                   ORDER BY version DESC LIMIT 2) newest)`,
      [streamId, version, SNAPSHOT_SCHEMA_VERSION, JSON.stringify(state)],
    );
  }
}
