import type pg from 'pg';
import { queryAcrossSessions } from '#event-store';
import { type SealedRow, sealRowContent } from '../read-model-content.js';
import type { DataKeySource } from '../session-index/session-index.projector.js';

/** The `projection_checkpoints` row that says every summary written before sealed read models was sealed. */
export const SUMMARIES_SEALED = 'session_summaries_sealed';

export interface SummarySealingResult {
  /** Plain rows holding a title or a pending turn that were read. */
  readonly examined: number;
  /** Rows rewritten sealed (a row without a key stays as it is: its events are plain too, or it was erased). */
  readonly sealed: number;
  /** True when an earlier pass had finished: nothing was read. */
  readonly alreadyDone: boolean;
}

/**
 * Seals the title and pending prompt of every summary row still written plain (by Chronicle before its read
 * models were sealed) whose session has a data key: each row rewritten only if it is still the version read and
 * still plain, so a concurrent append (which writes its own sealed row) always wins. Read in stream-id pages of
 * `batch` rows across the shards; each rewrite is one single-shard statement. A finished pass leaves a row in
 * `projection_checkpoints`, so later starts skip the scan; replicas may run it at once (the rewrite is guarded).
 */
export async function sealPlainSummaries(pool: pg.Pool, keys: DataKeySource, options: { batch?: number } = {}): Promise<SummarySealingResult> {
  const batch = options.batch ?? 500;
  const done = await pool.query(`SELECT 1 FROM projection_checkpoints WHERE name = $1`, [SUMMARIES_SEALED]);
  if (done.rows.length > 0) return { examined: 0, sealed: 0, alreadyDone: true };
  let examined = 0;
  let sealed = 0;
  let after = '';
  for (;;) {
    const { rows } = await queryAcrossSessions<{ stream_id: string; version: string; data: SealedRow<Parameters<typeof sealRowContent>[3]> }>(pool, {
      text: `SELECT stream_id, version::text, data FROM session_summaries
              WHERE stream_id > $1 AND NOT (data ? 'sealed')
                AND (data->>'title' IS NOT NULL OR jsonb_typeof(data->'pendingTurn') = 'object')
              ORDER BY stream_id LIMIT $2`,
      values: [after, batch],
    });
    if (rows.length === 0) break;
    examined += rows.length;
    const found = await keys.keysFor(rows.map((row) => row.stream_id));
    for (const row of rows) {
      const key = found.get(row.stream_id)?.key;
      if (key === undefined) continue;
      const data = sealRowContent(key, row.stream_id, 'summary', row.data);
      const result = await pool.query(
        `UPDATE session_summaries SET data = $3::jsonb WHERE stream_id = $1 AND version = $2::bigint AND NOT (data ? 'sealed')`,
        [row.stream_id, row.version, JSON.stringify(data)],
      );
      sealed += result.rowCount ?? 0;
    }
    after = rows[rows.length - 1]!.stream_id;
    if (rows.length < batch) break;
  }
  await pool.query(`INSERT INTO projection_checkpoints (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, [SUMMARIES_SEALED]);
  return { examined, sealed, alreadyDone: false };
}
