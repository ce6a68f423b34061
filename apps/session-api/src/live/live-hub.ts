import { EventEmitter } from 'node:events';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { fromSessionStreamId } from '#domain';
import { PG_POOL } from '../database/database.module.js';

export const NOTIFY_CHANNEL = 'chronicle_session_appended';

/**
 * Tells live subscribers that a session changed. Fed in process by the write path and, for writes made
 * by other replicas, by LISTEN on the channel the append statement notifies (no extra round trip).
 */
@Injectable()
export class LiveHub implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(LiveHub.name);
  private readonly emitter = new EventEmitter();
  private listener: pg.PoolClient | null = null;

  constructor(@Inject(PG_POOL) private readonly pool: pg.Pool) {
    this.emitter.setMaxListeners(0);
  }

  async onModuleInit(): Promise<void> {
    try {
      this.listener = await this.pool.connect();
      this.listener.on('notification', (message) => {
        const [streamId, version] = (message.payload ?? '').split(' ');
        const sessionId = fromSessionStreamId(streamId);
        if (sessionId) this.changed(sessionId, Number(version));
      });
      this.listener.on('error', (error) => this.logger.warn(`live listener lost: ${error.message}`));
      await this.listener.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (error) {
      this.logger.warn(`live updates from other replicas are off: ${(error as Error).message}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.emitter.removeAllListeners();
    const listener = this.listener;
    this.listener = null;
    if (listener) {
      await listener.query(`UNLISTEN ${NOTIFY_CHANNEL}`).catch(() => undefined);
      listener.release();
    }
  }

  changed(sessionId: string, version: number): void {
    this.emitter.emit(sessionId, version);
    this.emitter.emit('*', sessionId, version);
  }

  /** Returns the unsubscribe function; callers must call it when their client goes away. */
  subscribe(sessionId: string, listener: (version: number) => void): () => void {
    this.emitter.on(sessionId, listener);
    return () => this.emitter.off(sessionId, listener);
  }

  onAny(listener: (sessionId: string, version: number) => void): () => void {
    this.emitter.on('*', listener);
    return () => this.emitter.off('*', listener);
  }

  listenerCount(sessionId: string): number {
    return this.emitter.listenerCount(sessionId);
  }
}
