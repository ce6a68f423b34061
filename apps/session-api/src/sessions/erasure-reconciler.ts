import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { fromSessionStreamId } from '#domain';
import { DatabaseReachability } from '#platform';
import { SessionViews } from '#read-models';
import { SessionEraser } from './session-eraser.js';

const PAGE = 500;

/**
 * The key store remembers every erasure (a tombstone per destroyed key), the event database may not: restored
 * from a backup taken before an erasure, it holds the session without its `SessionErased`, and its read models
 * (summary, index) the copies the erasure had dropped. At start, in the background, each session whose key is a
 * tombstone and whose log does not say erased is erased again by the same path (reason: restored), so a restored
 * backup brings none of its content back to readers. Idempotent: replicas may run it at once.
 */
@Injectable()
export class ErasureReconciler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Erasure');
  private running: Promise<unknown> | null = null;
  private stopping = false;

  constructor(
    private readonly eraser: SessionEraser,
    private readonly views: SessionViews,
    private readonly reachability: DatabaseReachability,
  ) {}

  onApplicationBootstrap(): void {
    if (this.eraser.keyring === null) return;
    this.running = this.reconcile().catch((error: unknown) => {
      if (!this.reachability.absorbs('erasure reconciler', error)) this.logger.warn(`erasures not re-applied: ${(error as Error).message}`);
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** Re-applies every erasure the key store knows and the log lacks; answers how many it re-applied. */
  async reconcile(): Promise<number> {
    const keyring = this.eraser.keyring;
    if (keyring === null) return 0;
    let reapplied = 0;
    for (let after = ''; !this.stopping; ) {
      const streams = await keyring.destroyedStreams(after, PAGE);
      if (streams.length === 0) break;
      after = streams[streams.length - 1];
      for (const streamId of streams) {
        const sessionId = fromSessionStreamId(streamId);
        if (sessionId === null || this.stopping) continue;
        const loaded = await this.views.load(sessionId);
        if (!loaded.exists || loaded.state.erased !== null) continue;
        const result = await this.eraser.erase({
          sessionId,
          reason: 'erased before: the key store holds its tombstone (a restored backup)',
          requestedBy: 'key-store',
          at: Date.now() / 1000,
        });
        reapplied += 1;
        this.logger.warn({ msg: 'erasure re-applied: the key store says erased, the log did not', sessionId, version: result.version });
      }
    }
    return reapplied;
  }
}
