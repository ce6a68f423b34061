import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { lockConnection, type SessionKeyring } from '#event-store';
import { ProblemError } from '#platform';
import { auditAll } from '#read-models';
import { KEYRING, PG_POOL } from '../database/database.module.js';
import { AuditJob } from './audit-job.js';

/** Session-level advisory lock held by the connection of the one whole-store audit running on a database. */
export const STORE_AUDIT_LOCK = 7_406_117_301;
const KEPT_JOBS = 20;
const logger = new Logger('Audit');

export interface StartedJob {
  readonly job: AuditJob;
  /** False when the answer is the job that was already running. */
  readonly started: boolean;
}

/**
 * Whole-store audits as background jobs: each runs to its end whatever happens to the request that started it.
 * One at a time per database: the job's own connection holds an advisory lock until it ends; a start while a
 * job of this process runs answers that job, a start while another replica's runs is a 409.
 */
@Injectable()
export class AuditJobs implements OnApplicationShutdown {
  private readonly jobs = new Map<string, AuditJob>();
  private current: AuditJob | null = null;
  private stopping = false;

  constructor(
    @Inject(PG_POOL) private readonly pool: pg.Pool,
    @Inject(KEYRING) private readonly keyring: SessionKeyring | null,
  ) {}

  get(jobId: string): AuditJob | undefined {
    return this.jobs.get(jobId);
  }

  async start(since: Date | null): Promise<StartedJob> {
    if (this.current?.running) return { job: this.current, started: false };
    // On Citus, on the coordinator: one whole-store audit at a time across the cluster.
    const client = await lockConnection(this.pool);
    let locked = false;
    try {
      locked = (await client.query('SELECT pg_try_advisory_lock($1) AS locked', [STORE_AUDIT_LOCK])).rows[0].locked;
    } finally {
      if (!locked) client.release();
    }
    if (this.current?.running) {
      if (locked) await this.unlock(client);
      return { job: this.current, started: false };
    }
    if (!locked) {
      throw new ProblemError(409, 'AUDIT_ALREADY_RUNNING', 'A whole-store audit is already running on this database (another replica).');
    }
    const job = new AuditJob(randomUUID(), since);
    this.remember(job);
    this.current = job;
    void this.run(job, client);
    return { job, started: true };
  }

  private async run(job: AuditJob, client: pg.PoolClient): Promise<void> {
    try {
      const report = await auditAll(
        { pool: this.pool, keyring: this.keyring },
        { since: job.since ?? undefined, onProgress: (p) => job.progressed(p), cancelled: () => this.stopping },
      );
      if (this.stopping) throw new Error('stopped: the service shut down before the audit finished');
      job.completed(report);
      logger.log(`audit job ${job.jobId}: ${report.sessions} session(s), ${report.eventsReplayed} event(s), ${report.mismatches.length} mismatch(es)`);
    } catch (error) {
      logger.warn(`audit job ${job.jobId} failed: ${(error as Error).message}`);
      job.failed(error);
    } finally {
      await this.unlock(client);
    }
  }

  private async unlock(client: pg.PoolClient): Promise<void> {
    try {
      await client.query('SELECT pg_advisory_unlock($1)', [STORE_AUDIT_LOCK]);
      client.release();
    } catch (error) {
      client.release(error as Error);
    }
  }

  private remember(job: AuditJob): void {
    this.jobs.set(job.jobId, job);
    for (const [id, old] of this.jobs) {
      if (this.jobs.size <= KEPT_JOBS) break;
      if (!old.running) this.jobs.delete(id);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    const running = this.current;
    if (running?.running) await new Promise((resolve) => running.once('end', resolve));
  }
}
