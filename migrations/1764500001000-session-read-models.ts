import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Session read models. `session_summaries` is written inline by the append transaction (small row);
 * `session_snapshots` holds projection state written off the hot path; `session_index` is the async
 * projector's table for lists and filters.
 */
export class SessionReadModels1764500001000 implements MigrationInterface {
  name = 'SessionReadModels1764500001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE session_summaries (
        stream_id   text PRIMARY KEY,
        version     bigint NOT NULL,
        data        jsonb NOT NULL,
        updated_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE session_snapshots (
        stream_id       text NOT NULL,
        version         bigint NOT NULL,
        schema_version  integer NOT NULL,
        state           jsonb NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (stream_id, version)
      )`);
    await q.query(`
      CREATE TABLE session_index (
        session_id        text PRIMARY KEY,
        title             text,
        parent_session_id text,
        status            text NOT NULL,
        archived          boolean NOT NULL DEFAULT false,
        version           bigint NOT NULL,
        created_at        double precision,
        last_activity_at  double precision,
        message_count     integer NOT NULL DEFAULT 0,
        updated_at        timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX session_index_status ON session_index (status, last_activity_at DESC, session_id)`);
    await q.query(`CREATE INDEX session_index_recent ON session_index (last_activity_at DESC, session_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE session_index`);
    await q.query(`DROP TABLE session_snapshots`);
    await q.query(`DROP TABLE session_summaries`);
  }
}
