import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The service's Prometheus metrics, one registry per app instance (tests boot several). */
/** What the pool gauges read (pg.Pool has these counters). */
export interface PoolLike {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export class Metrics {
  readonly registry = new Registry();
  readonly appends = new Counter({
    name: 'chronicle_appends_total',
    help: 'Appends to session streams, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly appendedEvents = new Counter({
    name: 'chronicle_appended_events_total',
    help: 'Domain events appended',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly appendBatchSize = new Histogram({
    name: 'chronicle_append_batch_size',
    help: 'Appends sent together in one group-committed transaction',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  });

  readonly appendLatency = new Histogram({
    name: 'chronicle_append_duration_seconds',
    help: 'Latency of one append (queueing for its group commit included)',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });
  readonly projectionLag = new Gauge({
    name: 'chronicle_projection_lag_events',
    help: 'Events visible in the log that an async projector has not processed yet',
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });
  readonly recoveryDecisions = new Counter({
    name: 'chronicle_recovery_decisions_total',
    help: 'Decisions appended by the recovery supervisor, by kind and cause',
    labelNames: ['decision', 'cause'] as const,
    registers: [this.registry],
  });
  readonly recoveryRefusals = new Counter({
    name: 'chronicle_recovery_refusals_total',
    help: 'Recovery decisions the supervisor proposed and the domain refused, by kind and error code',
    labelNames: ['decision', 'code'] as const,
    registers: [this.registry],
  });
  readonly clientDisconnects = new Counter({
    name: 'chronicle_client_disconnects_total',
    help: 'Requests whose client went away mid-response (broken pipe, reset)',
    registers: [this.registry],
  });
  readonly projectorBusy = new Counter({
    name: 'chronicle_projector_busy_seconds_total',
    help: 'Time an async projector spent on its own synchronous work in its passes (rendering, building rows; not the waits), by projection',
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });

  readonly httpRequests = new Counter({
    name: 'chronicle_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'chronicle_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  /** Filled on each scrape from what `watch*` was given (the pool, the live hub). */
  private readonly sources: { pool?: PoolLike; openStreams?: () => number } = {};

  readonly dbPool = new Gauge({
    name: 'chronicle_db_pool_connections',
    help: 'PostgreSQL pool connections, by state (total, idle, waiting = requests queued for a connection)',
    labelNames: ['state'] as const,
    registers: [this.registry],
    collect: () => {
      const pool = this.sources.pool;
      if (!pool) return;
      this.dbPool.set({ state: 'total' }, pool.totalCount);
      this.dbPool.set({ state: 'idle' }, pool.idleCount);
      this.dbPool.set({ state: 'waiting' }, pool.waitingCount);
    },
  });

  readonly liveStreams = new Gauge({
    name: 'chronicle_live_streams',
    help: 'Open Server-Sent-Events streams (/live)',
    registers: [this.registry],
    collect: () => {
      if (this.sources.openStreams) this.liveStreams.set(this.sources.openStreams());
    },
  });

  readonly ingestConnections = new Gauge({
    name: 'chronicle_ingest_connections',
    help: 'Open WebSocket ingest connections (/v1/ingest)',
    registers: [this.registry],
  });
  readonly ingestMessages = new Counter({
    name: 'chronicle_ingest_messages_total',
    help: 'WebSocket ingest messages answered, by the status of their reply',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  watchPool(pool: PoolLike): void {
    this.sources.pool = pool;
  }

  watchLiveStreams(count: () => number): void {
    this.sources.openStreams = count;
  }

  readonly databaseReachable = new Gauge({
    name: 'chronicle_database_reachable',
    help: 'Whether PostgreSQL was reachable at the last contact (1) or is in an outage (0)',
    registers: [this.registry],
  });

  readonly viewCacheBytes = new Gauge({
    name: 'chronicle_view_cache_bytes',
    help: 'Estimated bytes of fold states, rendered views and hashed transcripts held in memory, by cache (bounded together by CHRONICLE_VIEW_CACHE_BYTES)',
    labelNames: ['cache'] as const,
    registers: [this.registry],
  });

  readonly answerCacheBytes = new Gauge({
    name: 'chronicle_answer_cache_bytes',
    help: 'Bytes of serialised and compressed read answers held in memory (bounded by CHRONICLE_ANSWER_CACHE_BYTES)',
    registers: [this.registry],
  });

  readonly auditVerified = new Counter({
    name: 'chronicle_audit_sessions_verified_total',
    help: 'Sessions the continuous auditor re-verified, by result (match, mismatch)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly retentionErased = new Counter({
    name: 'chronicle_retention_erased_total',
    help: 'Sessions the retention sweep erased (untouched for CHRONICLE_RETENTION_DAYS)',
    registers: [this.registry],
  });

  readonly retentionDue = new Gauge({
    name: 'chronicle_retention_due',
    help: 'Sessions past the retention period and not erased yet, as the last sweep counted them',
    registers: [this.registry],
  });

  readonly auditChainBreaks = new Counter({
    name: 'chronicle_audit_chain_breaks_total',
    help: 'Sessions the continuous auditor found with a broken hash chain',
    registers: [this.registry],
  });

  readonly auditBusy = new Counter({
    name: 'chronicle_audit_busy_seconds_total',
    help: "Time the continuous auditor's passes spent on their own synchronous work (hashing, opening, folding, rendering, comparing; not their waits for reads or keys): its share of the process's CPU",
    registers: [this.registry],
  });

  readonly auditLag = new Gauge({
    name: 'chronicle_audit_lag_events',
    help: 'Events past the continuous auditor checkpoint (capped)',
    registers: [this.registry],
  });

  readonly viewCache = new Counter({
    name: 'chronicle_view_cache_total',
    help: 'Rendered-view cache lookups, by result',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly viewStateReloads = new Counter({
    name: 'chronicle_view_state_reloads_total',
    help: 'Fold states dropped from the in-process cache to make room and then loaded again (the sessions worked on need more than the states share of CHRONICLE_VIEW_CACHE_BYTES)',
    registers: [this.registry],
  });

  readonly viewStateReloadEvents = new Counter({
    name: 'chronicle_view_state_reload_events_total',
    help: 'Events those reloads read back from the store (a pending turn is read whole)',
    registers: [this.registry],
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    this.databaseReachable.set(1);
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'chronicle_' });
  }
}
