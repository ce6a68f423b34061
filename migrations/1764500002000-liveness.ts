import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Liveness facts of the recovery supervisor: ephemeral, not events (a decision copies the facts it used
 * into its evidence). Times are epoch seconds (double precision), comparable with a sweep's `now`.
 * A released lease keeps its row so the cause classification still knows the run's latest host.
 */
export class Liveness1764500002000 implements MigrationInterface {
  name = 'Liveness1764500002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE run_leases (
        run_id       text PRIMARY KEY,
        session_id   text NOT NULL,
        host_id      text NOT NULL,
        phase        text NOT NULL CHECK (phase IN ('starting', 'running', 'cancelling')),
        expires_at   double precision NOT NULL,
        phase_since  double precision NOT NULL,
        released_at  double precision,
        updated_at   timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX run_leases_host ON run_leases (host_id) WHERE released_at IS NULL`);
    await q.query(`
      CREATE TABLE live_streams (
        run_id      text PRIMARY KEY,
        session_id  text NOT NULL,
        opened_at   double precision NOT NULL
      )`);
    await q.query(`
      CREATE TABLE host_boots (
        host_id     text PRIMARY KEY,
        started_at  double precision NOT NULL,
        updated_at  timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE host_boots`);
    await q.query(`DROP TABLE live_streams`);
    await q.query(`DROP TABLE run_leases`);
  }
}
