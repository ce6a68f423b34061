import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import pg from 'pg';
import type { EventStore, SessionKeyring } from '#event-store';
import { type ChronicleConfig, DatabaseReachability, Metrics } from '#platform';
import { ContinuousAuditor, type SessionAudit, SessionViews } from '#read-models';
import { CONFIG } from '../app.constants.js';
import { EVENT_STORE, KEYRING, PG_POOL } from '../database/database.module.js';

/**
 * Runs the continuous auditor every CHRONICLE_AUDIT_INTERVAL_MS (off by default): each pass re-verifies at
 * most CHRONICLE_AUDIT_SESSIONS_PER_PASS sessions that changed since its checkpoint, replaying at most
 * CHRONICLE_AUDIT_REPLAY_BUDGET events (a session resumes from the newest snapshot an earlier pass verified,
 * and is verified whole the first time, after a mismatch and every ten minutes of activity). A mismatch is
 * logged with the session and version and counted; passes never overlap.
 */
@Injectable()
export class ContinuousAuditService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ContinuousAudit');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private readonly auditor: ContinuousAuditor;

  constructor(
    @Inject(CONFIG) private readonly config: ChronicleConfig,
    @Inject(PG_POOL) pool: pg.Pool,
    @Inject(EVENT_STORE) store: EventStore,
    views: SessionViews,
    private readonly metrics: Metrics,
    private readonly reachability: DatabaseReachability,
    @Inject(KEYRING) keyring: SessionKeyring | null,
  ) {
    this.auditor = new ContinuousAuditor(
      { pool, store, views, keyring },
      {
        sessionsPerPass: config.auditSessionsPerPass,
        replayBudget: config.auditReplayBudget,
        fullEveryMs: config.auditFullEveryMs,
        onVerified: (audit) => this.verified(audit),
        onLag: (events) => metrics.auditLag.set(events),
        onPass: (busySeconds) => metrics.auditBusy.inc(busySeconds),
      },
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.auditIntervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.auditor
        .pass()
        .catch(
          (error: unknown) =>
            this.reachability.absorbs('continuous auditor', error) ||
            this.logger.warn(`continuous audit pass failed: ${(error as Error).message}`),
        )
        .finally(() => (this.running = null));
    }, this.config.auditIntervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private verified(audit: SessionAudit): void {
    this.metrics.auditVerified.inc({ result: audit.match ? 'match' : 'mismatch' });
    if (!audit.chain.ok) this.metrics.auditChainBreaks.inc();
    if (audit.match) return;
    this.logger.error({
      msg: 'continuous audit: stored views differ from a replay of the events',
      sessionId: audit.sessionId,
      version: audit.version,
      chainOk: audit.chain.ok,
      firstBrokenVersion: audit.chain.firstBrokenVersion,
      differences: audit.differences.slice(0, 5).map((difference) => difference.path),
    });
  }
}
