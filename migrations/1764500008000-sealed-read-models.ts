import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `session_index.sealed`: a row's title and pending prompt sealed with the session's data key
 * (libs/read-models/src/read-model-content.ts), its `title` column then null and its `pending_turn` without text
 * and attachments. The inline summary keeps the same form inside `data` (a `sealed` field), which needs no DDL.
 * Dropping the projector's checkpoint makes it fold every session again and rewrite each index row sealed
 * (rows keep serving meanwhile, as in 1764500003000). A summary row written before stays plain until the
 * session's next write rewrites it.
 */
export class SealedReadModels1764500008000 implements MigrationInterface {
  name = 'SealedReadModels1764500008000';

  async up(q: QueryRunner): Promise<void> {
    await sequentialOnCitus(q);
    await q.query(`ALTER TABLE session_index ADD COLUMN sealed text`);
    await q.query(`DELETE FROM projection_checkpoints WHERE name = 'session_index'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await sequentialOnCitus(q);
    await q.query(`ALTER TABLE session_index DROP COLUMN sealed`);
    // The code before this migration reads titles and prompts from the clear columns only: its projector refills the
    // index; a summary row keeps its sealed form (title null to that code) until the session's next write.
    await q.query(`DELETE FROM projection_checkpoints WHERE name = 'session_index'`);
  }
}

/** On Citus, the DDL over one connection per node (as the scale-out migration's): no parallel shard connections in the migration's transaction. */
async function sequentialOnCitus(q: QueryRunner): Promise<void> {
  const rows: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
  if (rows.length > 0) await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
}
