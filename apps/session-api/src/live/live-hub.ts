import { EventEmitter } from 'node:events';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import pg from 'pg';
import { fromSessionStreamId } from '#domain';
import { DatabaseReachability } from '#platform';
import { engineOf } from '#event-store';
import { LruCache, NOTIFY_CHANNEL, parseNotification } from '#read-models';
import { ClusterListeners } from './cluster-listeners.js';
import { CONFIG_HEARTBEAT_MS } from './live.constants.js';
import { checkListening, DEFAULT_LISTEN_CHECK_MS } from './listen-check.js';
import { PG_POOL } from '../database/database.module.js';

/** Reconnect backoff of the LISTEN connection: doubles from the first delay up to the cap. */
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5000;
/** Sessions whose last emitted version is remembered (to drop the echo of our own NOTIFY). */
const EMITTED_SESSIONS = 10_000;

/**
 * Tells live subscribers that a session changed. Fed in process by the write path and, for writes made
 * by other replicas, by LISTEN on the channel the append transaction notifies (`liveNotifyProjection`): on
 * the pool's node, and on Citus on every other node too (`ClusterListeners`).
 *
 * Each local append is seen twice (the writer's `changed` call and the echo of its own NOTIFY), so
 * `changed` is idempotent per (session, version): only a version higher than the last one emitted for
 * that session goes out. The LISTEN connection reconnects (capped backoff) when it is lost, and after a
 * reconnect every subscribed session is re-checked, since notifications sent in the gap are gone. It is checked
 * every heartbeat period (`checkListening`): one that went silent is found lost too.
 */
@Injectable()
export class LiveHub implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger(LiveHub.name);
  private readonly emitter = new EventEmitter();
  /** Told of each erasure notice (`erasureNotice`), from this replica or another. */
  private readonly erasedListeners = new Set<(sessionId: string) => void>();
  private readonly emitted = new LruCache<string, number>(EMITTED_SESSIONS);
  private readonly openStreams = new Set<() => void>();
  /** The LISTEN connection and how to give it back (at most once) to the pool. */
  private listener: { client: pg.PoolClient; release(): void } | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelayMs = RECONNECT_FIRST_MS;
  private lost = false;
  /** The loss was the database's (logged once by the reachability state), so its reconnect is no news either. */
  private lostQuietly = false;
  private stopped = false;
  private shuttingDown = false;
  /** On Citus: LISTEN on every other node (an append notifies on the worker that ran it). */
  private cluster: ClusterListeners | null = null;

  constructor(
    @Inject(PG_POOL) private readonly pool: pg.Pool,
    private readonly reachability: DatabaseReachability,
    /** How often the LISTEN connections are checked (the live heartbeat's period). */
    @Optional() @Inject(CONFIG_HEARTBEAT_MS) private readonly checkMs: number = DEFAULT_LISTEN_CHECK_MS,
  ) {
    this.emitter.setMaxListeners(0);
  }

  async onModuleInit(): Promise<void> {
    await this.listen();
    const engine = await engineOf(this.pool).catch(() => 'postgres' as const);
    if (engine === 'citus' && !this.stopped) {
      this.cluster = new ClusterListeners(this.pool, (payload) => this.notified(payload), () => this.recheckSubscribers(), this.checkMs);
      await this.cluster.start();
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.emitter.removeAllListeners();
    await this.cluster?.stop();
    const listener = this.listener;
    this.listener = null;
    if (listener) {
      await listener.client.query(`UNLISTEN ${NOTIFY_CHANNEL}`).catch(() => undefined);
      listener.release();
    }
  }

  /** Ends every open live stream, or `app.close()` would wait for their clients forever. */
  beforeApplicationShutdown(): void {
    this.shuttingDown = true;
    for (const end of [...this.openStreams]) end();
    this.openStreams.clear();
  }

  /**
   * Registers an open live response; `end` is called on shutdown (on the next microtask if shutdown
   * already began, never synchronously). Returns the function to call when the stream ends by itself.
   */
  track(end: () => void): () => void {
    if (this.shuttingDown) {
      queueMicrotask(end);
      return () => undefined;
    }
    this.openStreams.add(end);
    return () => {
      this.openStreams.delete(end);
    };
  }

  openStreamCount(): number {
    return this.openStreams.size;
  }

  changed(sessionId: string, version: number): void {
    if (!Number.isSafeInteger(version)) return;
    const last = this.emitted.get(sessionId);
    if (last !== undefined && version <= last) return;
    this.emitted.set(sessionId, version);
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

  /** Called with the session id of every erasure notice heard; returns the unsubscribe function. */
  onErased(listener: (sessionId: string) => void): () => void {
    this.erasedListeners.add(listener);
    return () => this.erasedListeners.delete(listener);
  }

  listenerCount(sessionId: string): number {
    return this.emitter.listenerCount(sessionId);
  }

  /** Checks out a connection and LISTENs on it; on failure, schedules another attempt. */
  private async listen(): Promise<void> {
    if (this.stopped) return;
    let client: pg.PoolClient | undefined;
    try {
      client = await this.pool.connect();
      if (this.stopped) {
        client.release();
        return;
      }
      const connection = client;
      let released = false;
      let stopChecks = () => undefined as void;
      const release = (error?: Error) => {
        if (released) return false;
        released = true;
        stopChecks();
        connection.removeListener('notification', onNotification);
        if (this.listener?.client === connection) this.listener = null;
        connection.release(error);
        return true;
      };
      const drop = (error: Error) => {
        // Ends the broken connection instead of putting it back in the pool.
        if (!release(error) || this.stopped) return;
        this.lostQuietly = this.reachability.absorbs('live listener', error);
        if (!this.lostQuietly) this.logger.warn(`live listener lost: ${error.message}; reconnecting`);
        this.lost = true;
        this.scheduleReconnect();
      };
      const onNotification = (message: pg.Notification) => this.notified(message.payload ?? '');
      connection.on('notification', onNotification);
      // Stays attached after the drop: a released client may still emit errors, which must not crash.
      connection.on('error', (error) => drop(error));
      connection.on('end', () => drop(new Error('connection ended')));
      client = undefined;
      await connection.query(`LISTEN ${NOTIFY_CHANNEL}`).catch((error: Error) => {
        drop(error);
        throw error;
      });
      if (released) return;
      this.listener = { client: connection, release: () => void release() };
      stopChecks = checkListening(connection, this.checkMs);
      this.reconnectDelayMs = RECONNECT_FIRST_MS;
      if (this.lost) {
        this.lost = false;
        if (this.lostQuietly) this.logger.debug('live listener reconnected');
        else this.logger.log('live listener reconnected');
        this.lostQuietly = false;
        this.recheckSubscribers();
      }
    } catch (error) {
      client?.release(error as Error);
      if (this.stopped) return;
      if (!this.lost) {
        this.lostQuietly = this.reachability.absorbs('live listener', error);
        if (!this.lostQuietly) this.logger.warn(`live updates from other replicas are off for now: ${(error as Error).message}`);
      }
      this.lost = true;
      this.scheduleReconnect();
    }
  }

  /** A notification's payload, `<streamId> <version>`, or an erasure's notice (`<streamId> <version> erased`). */
  private notified(payload: string): void {
    const { streamId, version, erased } = parseNotification(payload);
    const sessionId = fromSessionStreamId(streamId);
    if (!sessionId) return;
    if (erased) {
      for (const listener of this.erasedListeners) {
        try {
          listener(sessionId);
        } catch (error) {
          this.logger.warn(`erasure notice for ${sessionId} not handled: ${(error as Error).message}`);
        }
      }
    }
    this.changed(sessionId, version);
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(delay * 2, RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.listen();
    }, delay);
    this.reconnectTimer.unref();
  }

  /**
   * Notifications sent while the connection was down are lost: each subscriber re-reads its session
   * (it only sends a version newer than the one it already sent). Not routed through `changed`, so the
   * per-session last-emitted versions stay exact.
   */
  private recheckSubscribers(): void {
    for (const name of this.emitter.eventNames()) {
      if (typeof name === 'string' && name !== '*') this.emitter.emit(name, Number.MAX_SAFE_INTEGER);
    }
  }
}
