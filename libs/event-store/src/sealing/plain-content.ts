import type pg from 'pg';
import { CONTENT_FIELDS, DROPPED_CONTENT } from '#domain/replay';
import { SEALED_FIELD } from './content-seal.js';

/** Event types that carry content, with their content fields. */
const CONTENT_TYPES = Object.entries(CONTENT_FIELDS).filter(([, fields]) => fields.length > 0);

/**
 * Events written before content was sealed keep it in the clear; an erasure cannot shred what no key protects, so
 * it drops that content from the table instead: each such event keeps its plain fields and says `dropped:
 * "content"` (its stored link can then no longer be recomputed: the `SessionErased` lists the versions, and the
 * audit accepts exactly those; README "Personal data"). One stream, so one shard on Citus.
 */
export class PlainContent {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * The stream's version, then the versions of its events whose content is stored plain (neither sealed nor
   * dropped), in order: read in that order, the list holds every such event up to `head` (and maybe later ones),
   * so a decision appended at `head` (an expected version) knows them all.
   */
  async listing(streamId: string): Promise<{ head: number; versions: number[] }> {
    const head = await this.pool.query<{ version: number }>('SELECT version::int AS version FROM streams WHERE stream_id = $1', [streamId]);
    return { head: head.rows[0]?.version ?? 0, versions: await this.versions(streamId) };
  }

  /** Versions of the stream's events whose content is stored plain (neither sealed nor dropped), in order. */
  async versions(streamId: string): Promise<number[]> {
    const result = await this.pool.query<{ version: number }>(
      `SELECT version::int AS version FROM events
        WHERE stream_id = $1 AND type = ANY($2::text[]) AND NOT (data::jsonb ? $3) AND (data::jsonb ->> $4) IS DISTINCT FROM $5
        ORDER BY version`,
      [streamId, CONTENT_TYPES.map(([type]) => type), SEALED_FIELD, DROPPED_CONTENT.field, DROPPED_CONTENT.value],
    );
    return result.rows.map((row) => row.version);
  }

  /** Drops the content of those of `versions` still stored plain; answers how many it rewrote. */
  async drop(streamId: string, versions: readonly number[]): Promise<number> {
    if (versions.length === 0) return 0;
    let rewritten = 0;
    for (const [type, fields] of CONTENT_TYPES) {
      const result = await this.pool.query(
        `UPDATE events SET data = ((data::jsonb - $3::text[]) || jsonb_build_object($5::text, $6::text))::json
          WHERE stream_id = $1 AND type = $2 AND version = ANY($4::bigint[]) AND NOT (data::jsonb ? $7)`,
        [streamId, type, fields, versions, DROPPED_CONTENT.field, DROPPED_CONTENT.value, SEALED_FIELD],
      );
      rewritten += result.rowCount ?? 0;
    }
    return rewritten;
  }
}
