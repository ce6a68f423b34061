import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Snapshot states as `json` (the text as written, checked for syntax) instead of `jsonb`, compressed with lz4
 * where the server has it. Nothing queries inside a snapshot: it is written whole and read whole, so converting
 * it to jsonb and compressing it with pglz would spend PostgreSQL's CPU on every large state for nothing
 * (bench/README.md). A server built without lz4 keeps pglz.
 */
export class SnapshotStateJson1764500005000 implements MigrationInterface {
  name = 'SnapshotStateJson1764500005000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE session_snapshots ALTER COLUMN state TYPE json USING state::json`);
    await q.query(`
      DO $$ BEGIN
        ALTER TABLE session_snapshots ALTER COLUMN state SET COMPRESSION lz4;
      EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
        RAISE NOTICE 'lz4 is not available on this server: snapshots stay compressed with pglz';
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE session_snapshots ALTER COLUMN state SET COMPRESSION pglz`);
    await q.query(`ALTER TABLE session_snapshots ALTER COLUMN state TYPE jsonb USING state::jsonb`);
  }
}
