import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import pg from 'pg';
import type { SessionKeyring } from '#event-store';
import { DatabaseReachability } from '#platform';
import { sealPlainSummaries } from '#read-models';
import { KEYRING, PG_POOL } from '../database/database.module.js';

/**
 * Once, in the background after start: the summary rows that Chronicle wrote plain before its read models were
 * sealed get their title and pending prompt sealed with their session's data key (`sealPlainSummaries`), so a
 * session idle since the upgrade does not keep them in the clear. A finished pass is recorded in the database:
 * later starts, and the other replicas, read one row and stop. Nothing to do with content sealing off.
 */
@Injectable()
export class SummarySealingService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('SummarySealing');
  private running: Promise<unknown> | null = null;

  constructor(
    @Inject(PG_POOL) private readonly pool: pg.Pool,
    @Inject(KEYRING) private readonly keyring: SessionKeyring | null,
    private readonly reachability: DatabaseReachability,
  ) {}

  onApplicationBootstrap(): void {
    const keyring = this.keyring;
    if (keyring === null) return;
    this.running = sealPlainSummaries(this.pool, keyring)
      .then((result) => {
        if (!result.alreadyDone) this.logger.log({ msg: 'plain summary rows sealed', examined: result.examined, sealed: result.sealed });
      })
      .catch((error: unknown) => this.reachability.absorbs('summary sealing', error) || this.logger.warn(`sealing plain summary rows failed: ${(error as Error).message}`));
  }

  async onModuleDestroy(): Promise<void> {
    await this.running;
  }
}
