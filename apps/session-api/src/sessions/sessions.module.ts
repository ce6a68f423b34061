import { Inject, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { toSessionStreamId } from '#domain';
import type { EventStore, SessionKeyring } from '#event-store';
import { type ChronicleConfig, DatabaseReachability, Metrics } from '#platform';
import { EncodedAnswers, SessionIndexProjector, SessionViews, SnapshotStore, StateReloadWarnings } from '#read-models';
import { SessionWriter } from '#session-commands';
import { CONFIG } from '../app.constants.js';
import { EVENT_STORE, KEYRING, PG_POOL } from '../database/database.module.js';
import { LiveController } from '../live/live.controller.js';
import { CONFIG_HEARTBEAT_MS } from '../live/live.constants.js';
import { LiveHub } from '../live/live-hub.js';
import { CompressSessionHandler } from './compress-session.handler.js';
import { EraseSessionHandler } from './erase-session.handler.js';
import { ErasureController } from './erasure.controller.js';
import { RetentionService } from './retention.service.js';
import { SummarySealingService } from './summary-sealing.service.js';
import { ErasureReconciler } from './erasure-reconciler.js';
import { SessionEraser } from './session-eraser.js';
import { ExecuteSessionCommandHandler } from './execute-session-command.handler.js';
import { GetSessionEventsHandler } from './get-session-events.handler.js';
import { GetTranscriptHandler } from './get-transcript.handler.js';
import { IngestionController } from './ingestion.controller.js';
import { SessionQueriesController } from './session-queries.controller.js';
import { GetRunJournalHandler, GetSessionMarkersHandler, GetSessionSummaryHandler, ListSessionsHandler } from './session-queries.handlers.js';
import { SessionsController } from './sessions.controller.js';
import { IngestGateway } from '../ingest/ingest.gateway.js';
import { RecordJournalPartsHandler } from '../ingest/record-journal-parts.handler.js';

const logger = new Logger('Sessions');

/** A fold state dropped for room and loaded again: counted, and said in the log at most once a minute. */
function stateReloads(budgetBytes: number, metrics: Metrics): (sessionId: string, eventsRead: number) => void {
  const warnings = new StateReloadWarnings(budgetBytes, (message) => logger.warn(message));
  return (_sessionId, eventsRead) => {
    metrics.viewStateReloads.inc();
    metrics.viewStateReloadEvents.inc(eventsRead);
    warnings.record(eventsRead);
  };
}

@Module({
  controllers: [SessionsController, IngestionController, SessionQueriesController, LiveController, ErasureController],
  providers: [
    ExecuteSessionCommandHandler,
    CompressSessionHandler,
    EraseSessionHandler,
    SessionEraser,
    RetentionService,
    SummarySealingService,
    ErasureReconciler,
    { provide: SnapshotStore, useFactory: (pool: pg.Pool, keyring: SessionKeyring | null) => new SnapshotStore(pool, keyring), inject: [PG_POOL, KEYRING] },
    GetSessionEventsHandler,
    ListSessionsHandler,
    GetSessionSummaryHandler,
    GetTranscriptHandler,
    GetSessionMarkersHandler,
    GetRunJournalHandler,
    LiveHub,
    IngestGateway,
    RecordJournalPartsHandler,
    {
      provide: SessionWriter,
      useFactory: (store: EventStore, views: SessionViews, hub: LiveHub) =>
        new SessionWriter(store, views, { onCommitted: (sessionId, version) => hub.changed(sessionId, version) }),
      inject: [EVENT_STORE, SessionViews, LiveHub],
    },
    { provide: CONFIG_HEARTBEAT_MS, useFactory: (config: ChronicleConfig) => config.liveHeartbeatMs, inject: [CONFIG] },
    {
      provide: SessionViews,
      useFactory: (
        store: EventStore,
        snapshots: SnapshotStore,
        config: ChronicleConfig,
        metrics: Metrics,
        reachability: DatabaseReachability,
        answers: EncodedAnswers,
      ) =>
        new SessionViews(store, snapshots, {
          // An erased session's encoded answers go with its rendered copies.
          onErased: (sessionId) => answers.forgetSession(sessionId),
          onStateReload: stateReloads(config.viewCacheBytes, metrics),
          snapshotEvery: config.snapshotEvery,
          cacheBytes: config.viewCacheBytes,
          onCacheBytes: (cache, bytes) => metrics.viewCacheBytes.set({ cache }, bytes),
          onCache: (result) => metrics.viewCache.inc({ result }),
          onError: (error) => reachability.absorbs('snapshots', error) || logger.warn(`snapshot failed: ${(error as Error).message}`),
        }),
      inject: [EVENT_STORE, SnapshotStore, CONFIG, Metrics, DatabaseReachability, EncodedAnswers],
    },
    {
      provide: EncodedAnswers,
      useFactory: (config: ChronicleConfig, metrics: Metrics) =>
        new EncodedAnswers(config.answerCacheBytes, (bytes) => metrics.answerCacheBytes.set(bytes)),
      inject: [CONFIG, Metrics],
    },
    {
      provide: SessionIndexProjector,
      useFactory: (
        pool: pg.Pool,
        store: EventStore,
        views: SessionViews,
        metrics: Metrics,
        reachability: DatabaseReachability,
        keyring: SessionKeyring | null,
      ) =>
        new SessionIndexProjector(pool, store, views, {
          keys: keyring,
          onLag: (lag) => metrics.projectionLag.set({ projection: 'session_index' }, lag),
          onPass: (seconds) => metrics.projectorBusy.inc({ projection: 'session_index' }, seconds),
          onError: (error) =>
            reachability.absorbs('session index projector', error) || logger.warn(`session index projector: ${(error as Error).message}`),
        }),
      inject: [PG_POOL, EVENT_STORE, SessionViews, Metrics, DatabaseReachability, KEYRING],
    },
  ],
  exports: [SessionWriter, SessionViews, SnapshotStore, LiveHub, SessionIndexProjector],
})
export class SessionsModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private unsubscribe: (() => void) | null = null;
  private unsubscribeErased: (() => void) | null = null;

  constructor(
    private readonly projector: SessionIndexProjector,
    private readonly hub: LiveHub,
    private readonly metrics: Metrics,
    private readonly views: SessionViews,
    @Inject(KEYRING) private readonly keyring: SessionKeyring | null,
    @Inject(CONFIG) private readonly config: ChronicleConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.metrics.watchLiveStreams(() => this.hub.openStreamCount());
    this.projector.start(this.config.projectorIntervalMs);
    this.unsubscribe = this.hub.onAny(() => this.projector.poke());
    // An erasure on any replica: this one's key and cached copies of the session go at once (README "Personal data").
    this.unsubscribeErased = this.hub.onErased((sessionId) => {
      this.keyring?.forget(toSessionStreamId(sessionId));
      this.views.forgetErased(sessionId);
    });
    this.projector.poke();
  }

  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribeErased?.();
    await this.projector.stop();
  }
}
