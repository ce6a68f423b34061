import type pg from 'pg';
import { allowFanOut, engineOf, queryAcrossSessions } from '#event-store';
import { isRunAlive, type LeaseFact, type LeasePhase, type LivenessFacts } from './liveness-facts.js';

export interface PutLease {
  readonly runId: string;
  readonly sessionId: string;
  readonly hostId: string;
  readonly ttlSeconds: number;
  /** Absent: keep the lease's phase (`running` for a new lease). */
  readonly phase?: LeasePhase;
  /** The registry's clock when the worker called (epoch seconds). */
  readonly at: number;
}

export interface LeaseRecord extends LeaseFact {
  readonly runId: string;
  readonly sessionId: string;
}

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function toLease(row: Record<string, unknown>): LeaseRecord {
  return {
    runId: String(row.run_id),
    sessionId: String(row.session_id),
    hostId: String(row.host_id),
    phase: row.phase as LeasePhase,
    expiresAt: Number(row.expires_at),
    phaseSince: Number(row.phase_since),
    releasedAt: num(row.released_at),
  };
}

/**
 * The pg-backed worker registry: run leases, open live streams, host boots. Ephemeral facts, not events;
 * a recovery decision copies what it used into its evidence.
 */
export class LivenessRegistry {
  constructor(private readonly pool: pg.Pool) {}

  /** Registers or renews a run; `phaseSince` is kept from the first write with that phase. */
  async putLease(lease: PutLease): Promise<LeaseRecord> {
    const result = await this.pool.query(
      `INSERT INTO run_leases AS l (run_id, session_id, host_id, phase, expires_at, phase_since, released_at)
       VALUES ($1, $2, $3, COALESCE($4::text, 'running'), $5::float8 + $6::float8, $5::float8, NULL)
       ON CONFLICT (run_id) DO UPDATE SET
         session_id = EXCLUDED.session_id,
         host_id = EXCLUDED.host_id,
         phase = COALESCE($4::text, l.phase),
         phase_since = CASE WHEN COALESCE($4::text, l.phase) = l.phase THEN l.phase_since ELSE $5::float8 END,
         expires_at = EXCLUDED.expires_at,
         released_at = NULL,
         updated_at = EXCLUDED.updated_at
       RETURNING run_id, session_id, host_id, phase, expires_at, phase_since, released_at`,
      [lease.runId, lease.sessionId, lease.hostId, lease.phase ?? null, lease.at, lease.ttlSeconds],
    );
    return toLease(result.rows[0]);
  }

  /** The worker unregistered the run. The row stays (released) so the run's latest host stays known. */
  async deleteLease(runId: string, at: number): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE run_leases SET released_at = $2::float8, updated_at = now() WHERE run_id = $1 AND released_at IS NULL`,
      [runId, at],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async openStream(runId: string, sessionId: string, at: number): Promise<{ runId: string; sessionId: string; openedAt: number }> {
    const result = await this.pool.query(
      `INSERT INTO live_streams (run_id, session_id, opened_at) VALUES ($1, $2, $3)
       ON CONFLICT (run_id) DO UPDATE SET session_id = EXCLUDED.session_id
       RETURNING opened_at`,
      [runId, sessionId, at],
    );
    return { runId, sessionId, openedAt: Number(result.rows[0].opened_at) };
  }

  async closeStream(runId: string): Promise<boolean> {
    const result = await this.pool.query(`DELETE FROM live_streams WHERE run_id = $1`, [runId]);
    return (result.rowCount ?? 0) > 0;
  }

  /**
   * An agent host booted: the runs it held before are gone, so its registered leases are released and the live
   * streams of those runs opened before the boot are closed (a restart empties the streams, reference §1.6: an
   * open stream row would keep the run alive for ever). A repeat (or a late retry of an older boot) changes
   * nothing. Returns how many leases it released.
   */
  async hostStarted(hostId: string, startedAt: number): Promise<{ hostId: string; startedAt: number; releasedLeases: number }> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // Releasing the host's leases reads every shard of run_leases on Citus.
      await allowFanOut(client, await engineOf(this.pool));
      const boot = await client.query(
        `INSERT INTO host_boots AS h (host_id, started_at) VALUES ($1, $2)
         ON CONFLICT (host_id) DO UPDATE SET started_at = EXCLUDED.started_at, updated_at = EXCLUDED.updated_at
           WHERE h.started_at < EXCLUDED.started_at
         RETURNING started_at`,
        [hostId, startedAt],
      );
      let releasedLeases = 0;
      if ((boot.rowCount ?? 0) > 0) {
        const released = await client.query(
          `UPDATE run_leases SET released_at = $2, updated_at = now() WHERE host_id = $1 AND released_at IS NULL`,
          [hostId, startedAt],
        );
        releasedLeases = released.rowCount ?? 0;
        // live_streams sits on run_leases' shards (colocated by run id): one statement per node on Citus.
        await client.query(
          `DELETE FROM live_streams s USING run_leases l
            WHERE l.run_id = s.run_id AND l.host_id = $1 AND l.released_at = $2 AND s.opened_at < $2`,
          [hostId, startedAt],
        );
      }
      const current = await client.query(`SELECT started_at FROM host_boots WHERE host_id = $1`, [hostId]);
      await client.query('COMMIT');
      return { hostId, startedAt: Number(current.rows[0].started_at), releasedLeases };
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }

  /** Everything the supervisor needs about one run: open stream, latest lease, and that lease's host boot. */
  async facts(runId: string): Promise<LivenessFacts> {
    // Two statements on the run's own shard (its lease joined to the host boots, a table every node holds).
    const [stream, lease] = await Promise.all([
      this.pool.query(`SELECT opened_at FROM live_streams WHERE run_id = $1`, [runId]),
      this.pool.query(
        `SELECT l.run_id, l.session_id, l.host_id, l.phase, l.expires_at, l.phase_since, l.released_at,
                h.started_at AS host_started_at
           FROM run_leases l LEFT JOIN host_boots h ON h.host_id = l.host_id
          WHERE l.run_id = $1`,
        [runId],
      ),
    ]);
    const row = lease.rows[0];
    return {
      runId,
      stream: stream.rows[0] ? { openedAt: Number(stream.rows[0].opened_at) } : null,
      lease: row ? toLease(row) : null,
      hostStartedAt: row ? num(row.host_started_at) : null,
    };
  }

  /** Open stream or a lease that still counts at `now` (a `cancelling` lease older than 60 s does not). */
  async isAlive(runId: string, now: number): Promise<boolean> {
    return isRunAlive(await this.facts(runId), now);
  }

  /** Drops lease rows no turn can still need: released or expired more than `keepSeconds` before `now`. */
  async purge(now: number, keepSeconds: number): Promise<number> {
    const result = await queryAcrossSessions(this.pool, {
      text: `DELETE FROM run_leases WHERE COALESCE(released_at, expires_at) < $1::float8`,
      values: [now - keepSeconds],
    });
    return result.rowCount ?? 0;
  }
}
