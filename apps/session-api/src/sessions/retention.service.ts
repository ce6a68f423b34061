import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import pg from 'pg';
import { queryAcrossSessions } from '#event-store';
import { type ChronicleConfig, DatabaseReachability, Metrics } from '#platform';
import { CONFIG } from '../app.constants.js';
import { PG_POOL } from '../database/database.module.js';
import { SessionEraser } from './session-eraser.js';

/** Sessions erased per sweep at most: a backlog drains over several sweeps instead of one long burst. */
const PER_SWEEP = 100;

/**
 * Retention (CHRONICLE_RETENTION_DAYS, off by default): every CHRONICLE_RETENTION_INTERVAL_MS, sessions nothing
 * was written to for longer than the period are erased by the same path as `POST …/erasure` (reason `retention`),
 * oldest first, one log line each; `chronicle_retention_erased_total` counts them and `chronicle_retention_due`
 * says how many were past the period at the sweep's start. Replicas may sweep at once: an erasure is idempotent.
 */
@Injectable()
export class RetentionService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Retention');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    @Inject(CONFIG) private readonly config: ChronicleConfig,
    @Inject(PG_POOL) private readonly pool: pg.Pool,
    private readonly eraser: SessionEraser,
    private readonly metrics: Metrics,
    private readonly reachability: DatabaseReachability,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.retentionDays <= 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .catch((error: unknown) => this.reachability.absorbs('retention', error) || this.logger.warn(`retention sweep failed: ${(error as Error).message}`))
        .finally(() => (this.running = null));
    }, this.config.retentionIntervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /**
   * One sweep: the sessions past the period, erased oldest first. "Untouched" is the time the database recorded
   * the session's last append (`streams.updated_at`), not the times its writers put in the events (a row without
   * a timestamp, a host's clock, an import of old conversations): those say when something was said, not when the
   * session was last written. The session index leaves out the sessions already erased (each row is on its
   * stream's shard, so on Citus the join runs on each node).
   */
  async sweep(now = Date.now() / 1000): Promise<number> {
    const cutoff = now - this.config.retentionDays * 86_400;
    const due = await queryAcrossSessions<{ session_id: string; n: number }>(this.pool, {
      text: `SELECT i.session_id, count(*) OVER ()::int AS n
               FROM session_index i JOIN streams s ON s.stream_id = i.stream_id
              WHERE i.status <> 'erased' AND s.updated_at < to_timestamp($1)
              ORDER BY s.updated_at, i.session_id LIMIT $2`,
      values: [cutoff, PER_SWEEP],
    });
    this.metrics.retentionDue.set(due.rows[0]?.n ?? 0);
    let erased = 0;
    for (const { session_id: sessionId } of due.rows) {
      const result = await this.eraser.erase({ sessionId, reason: `retention: untouched for ${this.config.retentionDays} day(s)`, requestedBy: 'retention', at: now });
      if (result.duplicate) continue;
      erased += 1;
      this.metrics.retentionErased.inc();
      this.logger.log({ msg: 'retention: session erased', sessionId, version: result.version, dataKeyId: result.dataKeyId });
    }
    return erased;
  }
}
