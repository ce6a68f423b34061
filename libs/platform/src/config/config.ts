import { z } from 'zod';
import { parseApiKeys, RATE_LIMIT_PATTERN } from '../auth/api-keys.js';
import { parseCorsOrigins } from '../http/cors.js';
import { DEFAULT_HEAP_GROWING_PERCENT } from '../runtime/heap-growth.js';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The longest delay a Node timer takes (2^31 - 1 ms, about 24.8 days): a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;
/** A delay in ms that ends up in a timer: bounded, or a month-long interval would run every millisecond. */
const timerMs = () => z.coerce.number().int().max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} ms (about 24.8 days), the longest timer Node keeps`);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  CHRONICLE_DATA_DIR: z.string().min(1).default('./.chronicle'),
  CHRONICLE_API_KEYS: z.string().optional(),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  CHRONICLE_BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
  // Off by default: a gateway sends all its users' traffic with one key, and a per-key default throttled it.
  CHRONICLE_RATE_LIMIT_PER_MINUTE: z
    .string()
    .trim()
    .regex(RATE_LIMIT_PATTERN, 'must be a whole number of requests per minute per API key (0 or unset = no limit)')
    .transform(Number)
    .default(0),
  CHRONICLE_RECOVERY_INTERVAL_MS: timerMs().min(0).default(5000),
  /** The continuous auditor's interval; 0 (the default) = off. */
  CHRONICLE_AUDIT_INTERVAL_MS: timerMs().min(0).default(0),
  CHRONICLE_AUDIT_SESSIONS_PER_PASS: z.coerce.number().int().min(1).max(10_000).default(20),
  CHRONICLE_AUDIT_REPLAY_BUDGET: z.coerce.number().int().min(1).default(2000),
  CHRONICLE_AUDIT_FULL_EVERY_MS: timerMs().min(0).default(600_000),
  CHRONICLE_SNAPSHOT_EVERY: z.coerce.number().int().positive().default(200),
  CHRONICLE_DB_POOL_SIZE: z.coerce.number().int().positive().default(10),
  /** How long a database connection may take to be made, or a request wait for one from the pool (ms); 0 = no bound. */
  CHRONICLE_DB_CONNECT_TIMEOUT_MS: timerMs().min(0).default(10_000),
  /** How long a statement may go unanswered on a connection before it is given up and the connection dropped (ms); 0 = no bound. */
  CHRONICLE_DB_QUERY_TIMEOUT_MS: timerMs().min(0).default(30_000),
  CHRONICLE_APPEND_IN_FLIGHT: z.coerce.number().int().positive().max(64).default(1),
  /** How long a group commit may wait for its batch to fill (ms); unset: 2 on Citus, 0 (never) on one PostgreSQL. */
  CHRONICLE_APPEND_LINGER_MS: z.coerce.number().int().min(0).max(50).optional(),
  CHRONICLE_PROJECTOR_INTERVAL_MS: timerMs().positive().default(1000),
  CHRONICLE_LIVE_HEARTBEAT_MS: timerMs().positive().default(15000),
  CHRONICLE_INGEST_MAX_UNANSWERED: z.coerce.number().int().positive().max(10_000).default(128),
  CHRONICLE_ANSWER_CACHE_BYTES: z.coerce.number().int().min(0).default(64 * 1024 * 1024),
  CHRONICLE_VIEW_CACHE_BYTES: z.coerce.number().int().min(0).default(64 * 1024 * 1024),
  /** V8's heap growing factor, percent over the live heap (runtime/heap-growth.ts); 0 = V8's own. */
  CHRONICLE_HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(1000).default(DEFAULT_HEAP_GROWING_PERCENT),
  CHRONICLE_CORS_ORIGINS: z.string().optional(),
  /** Content sealed at rest with per-session data keys (README "Personal data"); `off` stores it plain. */
  CHRONICLE_ENCRYPTION: z.enum(['on', 'off']).default('on'),
  CHRONICLE_MASTER_KEY: z.string().optional(),
  CHRONICLE_MASTER_KEY_PREVIOUS: z.string().optional(),
  CHRONICLE_KEYSTORE_URL: z.string().url().optional(),
  /** Sessions untouched for this many days are erased in the background; 0 (the default) = never. */
  CHRONICLE_RETENTION_DAYS: z.coerce.number().min(0).default(0),
  CHRONICLE_RETENTION_INTERVAL_MS: timerMs().positive().default(60_000),
});

export interface ChronicleConfig {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly apiKeys: string | undefined;
  readonly logLevel: (typeof logLevels)[number];
  readonly bodyLimitBytes: number;
  /** Requests per minute per API key unless the key sets its own (`@N`); 0 = no limit. */
  readonly rateLimitPerMinute: number;
  readonly recoveryIntervalMs: number;
  /** Continuous auditor: interval (0 = off) and sessions verified per pass. */
  readonly auditIntervalMs: number;
  readonly auditSessionsPerPass: number;
  /** Events the continuous auditor replays per pass at most (its first session always). */
  readonly auditReplayBudget: number;
  /** A session the continuous auditor verified is audited in full again once its last full audit is this old (0: every time). */
  readonly auditFullEveryMs: number;
  readonly snapshotEvery: number;
  readonly dbPoolSize: number;
  /** Group-commit transactions in flight at once; appends arriving while all are busy go together in the next. */
  readonly appendInFlight: number;
  /** Unset: the engine's default (event store `CITUS_LINGER_MS` on Citus, 0 on one PostgreSQL). */
  readonly appendLingerMs?: number;
  readonly projectorIntervalMs: number;
  readonly liveHeartbeatMs: number;
  /** Messages of one WebSocket ingest connection read and not yet answered; past it the server stops reading. */
  readonly ingestMaxUnanswered: number;
  /** Estimated bytes of fold states, views and transcripts kept in process (SessionViews). */
  readonly viewCacheBytes: number;
  /** Bytes of serialised (and compressed) read answers kept in memory; 0 = none. */
  readonly answerCacheBytes: number;
  /** V8's heap growing factor in percent over the live heap (0 = V8's own). */
  readonly heapGrowingPercent: number;
  /** Exact origins a browser page may call from (CORS); empty = no CORS headers. */
  readonly corsOrigins: readonly string[];
  /** Whether content is sealed with per-session data keys. */
  readonly encryption: boolean;
  /** The key-encryption key (base64 of 32 bytes); unset: the one kept in the data folder. */
  readonly masterKey: string | undefined;
  /** Earlier master keys still accepted to unwrap data keys until `chronicle keys rotate` re-wraps them. */
  readonly previousMasterKeys: readonly string[];
  /** The key table's database; unset: `<database>_keys` on the events' server. */
  readonly keystoreUrl: string | undefined;
  readonly retentionDays: number;
  /** How often the retention sweep looks for sessions past the period. */
  readonly retentionIntervalMs: number;
  /**
   * How long a connection to PostgreSQL (the events' database, a Citus node, the key store) may take to be made,
   * or a request wait for one from the pool, before it fails (503); 0 = no bound.
   */
  readonly dbConnectTimeoutMs: number;
  /**
   * How long a statement may go unanswered before the service gives it up and drops its connection (a host that
   * went silent under an open connection); a write given up is answered 503 and was not acknowledged. 0 = no bound.
   */
  readonly dbQueryTimeoutMs: number;
}

/** A bad setting: the service stops at once with this one line (no stack), before anything starts. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads the service configuration from the environment; a bad value names the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ChronicleConfig {
  // Empty or only blanks: unset (the default applies), never read as a number (" " would coerce to 0).
  const blankToUndefined = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === undefined || v.trim() === '' ? undefined : v]));
  const parsed = envSchema.safeParse(blankToUndefined);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  // Checked here so that a malformed key list stops the start with one line, before anything else runs.
  if (e.CHRONICLE_API_KEYS) {
    try {
      parseApiKeys(e.CHRONICLE_API_KEYS);
    } catch (error) {
      throw new ConfigError(`invalid configuration: ${(error as Error).message}`, { cause: error });
    }
  }
  let corsOrigins: string[];
  try {
    corsOrigins = parseCorsOrigins(e.CHRONICLE_CORS_ORIGINS);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`, { cause: error });
  }
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.CHRONICLE_DATA_DIR,
    apiKeys: e.CHRONICLE_API_KEYS,
    logLevel: e.LOG_LEVEL,
    bodyLimitBytes: e.CHRONICLE_BODY_LIMIT_BYTES,
    rateLimitPerMinute: e.CHRONICLE_RATE_LIMIT_PER_MINUTE,
    recoveryIntervalMs: e.CHRONICLE_RECOVERY_INTERVAL_MS,
    auditIntervalMs: e.CHRONICLE_AUDIT_INTERVAL_MS,
    auditSessionsPerPass: e.CHRONICLE_AUDIT_SESSIONS_PER_PASS,
    auditReplayBudget: e.CHRONICLE_AUDIT_REPLAY_BUDGET,
    auditFullEveryMs: e.CHRONICLE_AUDIT_FULL_EVERY_MS,
    snapshotEvery: e.CHRONICLE_SNAPSHOT_EVERY,
    dbPoolSize: e.CHRONICLE_DB_POOL_SIZE,
    appendInFlight: e.CHRONICLE_APPEND_IN_FLIGHT,
    ...(e.CHRONICLE_APPEND_LINGER_MS === undefined ? {} : { appendLingerMs: e.CHRONICLE_APPEND_LINGER_MS }),
    projectorIntervalMs: e.CHRONICLE_PROJECTOR_INTERVAL_MS,
    liveHeartbeatMs: e.CHRONICLE_LIVE_HEARTBEAT_MS,
    ingestMaxUnanswered: e.CHRONICLE_INGEST_MAX_UNANSWERED,
    answerCacheBytes: e.CHRONICLE_ANSWER_CACHE_BYTES,
    viewCacheBytes: e.CHRONICLE_VIEW_CACHE_BYTES,
    heapGrowingPercent: e.CHRONICLE_HEAP_GROWING_PERCENT,
    corsOrigins,
    encryption: e.CHRONICLE_ENCRYPTION === 'on',
    masterKey: e.CHRONICLE_MASTER_KEY,
    previousMasterKeys: (e.CHRONICLE_MASTER_KEY_PREVIOUS ?? '').split(',').map((k) => k.trim()).filter((k) => k !== ''),
    keystoreUrl: e.CHRONICLE_KEYSTORE_URL,
    retentionDays: e.CHRONICLE_RETENTION_DAYS,
    retentionIntervalMs: e.CHRONICLE_RETENTION_INTERVAL_MS,
    dbConnectTimeoutMs: e.CHRONICLE_DB_CONNECT_TIMEOUT_MS,
    dbQueryTimeoutMs: e.CHRONICLE_DB_QUERY_TIMEOUT_MS,
  };
}
