import pg from 'pg';
import { LatencyHistogram } from './latency-histogram.js';

/**
 * Raw INSERT baselines: pg directly, no service. A table shaped like Chronicle's `events` (without the hash,
 * global position and xid8 columns Chronicle adds); every connection writes its own stream with increasing
 * versions. `rowsPerTransaction` 1 = one autocommitted INSERT per row; n > 1 = one autocommitted
 * INSERT … SELECT FROM unnest(…) of n rows (one statement, one transaction, as an event store appends a batch).
 * Both are named prepared statements. The window is timed like the HTTP load client's: a warm-up, then the
 * rows of transactions that started and committed inside the window.
 */
export const EVENTS_TABLE_SQL = `
  CREATE TABLE events (
    stream_id    text NOT NULL,
    version      bigint NOT NULL,
    type         text NOT NULL,
    data         jsonb NOT NULL,
    metadata     jsonb NOT NULL DEFAULT '{}'::jsonb,
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, version)
  )`;

const INSERT_ONE = 'INSERT INTO events (stream_id, version, type, data, metadata) VALUES ($1, $2, $3, $4, $5)';
const INSERT_MANY = `INSERT INTO events (stream_id, version, type, data, metadata)
  SELECT $1, v, $2, d::jsonb, '{}'::jsonb FROM unnest($3::bigint[], $4::text[]) AS t(v, d)`;

export async function createEventsTable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(EVENTS_TABLE_SQL);
  } finally {
    await client.end();
  }
}

export interface RawInsertOptions {
  readonly url: string;
  readonly connections: number;
  readonly rowsPerTransaction: number;
  readonly durationMs: number;
  readonly warmupMs: number;
  /** Unique per run: stream ids are `<prefix>-<connection>`. */
  readonly streamPrefix: string;
  /**
   * `off`: every connection sets `synchronous_commit = off` (its commits answered before their WAL is flushed,
   * as Chronicle's relaxed tier does per transaction): what skipping the flush is worth on this storage.
   */
  readonly synchronousCommit?: 'off';
  readonly onWindowStart?: () => void;
}

export interface RawInsertResult {
  readonly rows: number;
  readonly rowsPerSecond: number;
  readonly transactionsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const eventData = (runId: string, seq: number): string =>
  JSON.stringify({ runId, seq, event: 'token', payload: { text: 'tok ' }, createdAt: Date.now() / 1000 });

export async function runRawInsert(options: RawInsertOptions): Promise<RawInsertResult> {
  const clients = await Promise.all(
    Array.from({ length: options.connections }, async () => {
      const client = new pg.Client({ connectionString: options.url });
      await client.connect();
      if (options.synchronousCommit === 'off') await client.query('SET synchronous_commit = off');
      return client;
    }),
  );
  const histogram = new LatencyHistogram();
  let rows = 0;
  let transactions = 0;
  const windowStart = performance.now() + options.warmupMs;
  const windowEnd = windowStart + options.durationMs;
  const startTimer = setTimeout(() => options.onWindowStart?.(), options.warmupMs);
  try {
    await Promise.all(
      clients.map(async (client, index) => {
        const streamId = `${options.streamPrefix}-${index}`;
        let version = 0;
        while (performance.now() < windowEnd) {
          const started = performance.now();
          if (options.rowsPerTransaction === 1) {
            version += 1;
            await client.query({ name: 'insert-one', text: INSERT_ONE, values: [streamId, version, 'JournalEventRecorded', eventData('raw', version), '{}'] });
          } else {
            const versions: number[] = [];
            const data: string[] = [];
            for (let i = 0; i < options.rowsPerTransaction; i += 1) {
              version += 1;
              versions.push(version);
              data.push(eventData('raw', version));
            }
            await client.query({ name: 'insert-many', text: INSERT_MANY, values: [streamId, 'JournalEventRecorded', versions, data] });
          }
          const done = performance.now();
          if (started >= windowStart && done <= windowEnd) {
            rows += options.rowsPerTransaction;
            transactions += 1;
            histogram.recordMicros((done - started) * 1000);
          }
        }
      }),
    );
  } finally {
    clearTimeout(startTimer);
    await Promise.all(clients.map((client) => client.end()));
  }
  const seconds = options.durationMs / 1000;
  return {
    rows,
    rowsPerSecond: rows / seconds,
    transactionsPerSecond: transactions / seconds,
    p50Ms: histogram.percentileMs(50),
    p99Ms: histogram.percentileMs(99),
  };
}
