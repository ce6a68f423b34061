import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `session_index.sealed`: a row's title and pending prompt sealed with the session's data key
 * (libs/read-models/src/read-model-content.ts), its `title` column then null and its `pending_turn` without text
 * and attachments. The inline summary keeps the same form inside `data` (a `sealed` field), which needs no DDL.
 * Rows written before stay plain until the session's next change rewrites them (or a rebuild rewrites them all).
 */
export class SealedReadModels1764500008000 implements MigrationInterface {
  name = 'SealedReadModels1764500008000';

  async up(q: QueryRunner): Promise<void> {
    await sequentialOnCitus(q);
    await q.query(`ALTER TABLE session_index ADD COLUMN sealed text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await sequentialOnCitus(q);
    await q.query(`ALTER TABLE session_index DROP COLUMN sealed`);
  }
}

/** On Citus, the DDL over one connection per node (as the scale-out migration's): no parallel shard connections in the migration's transaction. */
async function sequentialOnCitus(q: QueryRunner): Promise<void> {
  const rows: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
  if (rows.length > 0) await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
}
