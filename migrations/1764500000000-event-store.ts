import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event store: one stream per session, a global position for async projectors, and the
 * writing transaction's id (xid8) so `readAll` can fence out transactions that have not yet
 * committed (see libs/event-store/src/postgres-event-store.ts).
 */
export class EventStore1764500000000 implements MigrationInterface {
  name = 'EventStore1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE streams (
        stream_id   text PRIMARY KEY,
        version     bigint NOT NULL CHECK (version >= 0),
        last_hash   text NOT NULL DEFAULT '',
        archived    boolean NOT NULL DEFAULT false,
        created_at  timestamptz NOT NULL DEFAULT now(),
        updated_at  timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE events (
        global_position bigint GENERATED ALWAYS AS IDENTITY,
        stream_id       text NOT NULL,
        version         bigint NOT NULL CHECK (version >= 1),
        type            text NOT NULL,
        data            jsonb NOT NULL,
        metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
        hash            text NOT NULL,
        recorded_at     timestamptz NOT NULL DEFAULT now(),
        transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
        PRIMARY KEY (stream_id, version)
      )`);
    await q.query(`CREATE INDEX events_read_all ON events (transaction_id, global_position)`);
    await q.query(`
      CREATE TABLE idempotency_keys (
        stream_id   text NOT NULL,
        key         text NOT NULL,
        version     bigint NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (stream_id, key)
      )`);
    await q.query(`
      CREATE TABLE projection_checkpoints (
        name             text PRIMARY KEY,
        transaction_id   xid8 NOT NULL DEFAULT '0'::xid8,
        global_position  bigint NOT NULL DEFAULT 0,
        updated_at       timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE projection_checkpoints`);
    await q.query(`DROP TABLE idempotency_keys`);
    await q.query(`DROP TABLE events`);
    await q.query(`DROP TABLE streams`);
  }
}
