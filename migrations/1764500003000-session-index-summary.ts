import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rest of the contract's SessionSummary in `session_index`: the pending turn and the marker counts, so the
 * list answers full summaries. Rows written before this migration get the defaults (no pending turn, no
 * markers); dropping the projector's checkpoint makes it fold every session again and fill them in (rows keep
 * serving meanwhile: a same-version upsert overwrites them).
 */
export class SessionIndexSummary1764500003000 implements MigrationInterface {
  name = 'SessionIndexSummary1764500003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE session_index
        ADD COLUMN pending_turn jsonb,
        ADD COLUMN markers jsonb NOT NULL DEFAULT '{"pending":0,"recovered":0,"noOutput":0,"neutral":0}'::jsonb`);
    await q.query(`DELETE FROM projection_checkpoints WHERE name = 'session_index'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE session_index DROP COLUMN markers, DROP COLUMN pending_turn`);
  }
}
