import type pg from 'pg';
import { allowFanOut } from '#event-store';
import { fromSessionStreamId, toSessionStreamId } from '#domain';
import { CliError, EXIT, type CliIo, writeLine } from './cli-io.js';
import type { CliDatabase } from './database.connector.js';
import { createProgress } from './progress.reporter.js';

/** One line of an export file: an event with its stream version and chain hash. */
export interface ExportedEvent {
  readonly sessionId: string | null;
  readonly streamId: string;
  readonly version: number;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly hash: string;
  /** Epoch seconds (milliseconds in the fraction), as GET /v1/sessions/{id}/events answers it. */
  readonly recordedAt: number;
  /**
   * The session's data key (base64), on its stream's first event: the export can be imported into another store
   * and read there, so it is as sensitive as the content. An erased session has none: its content stays sealed.
   */
  readonly dataKey?: string;
}

const PAGE = 1000;

interface Row {
  stream_id: string;
  version: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  hash: string;
  recorded_at: Date;
}

export function toExportedEvent(row: Row): ExportedEvent {
  return {
    sessionId: fromSessionStreamId(row.stream_id),
    streamId: row.stream_id,
    version: Number(row.version),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    hash: row.hash,
    recordedAt: row.recorded_at.getTime() / 1000,
  };
}

/**
 * Pages of events in (stream, version) order by keyset on the primary key, all inside one read-only
 * REPEATABLE READ transaction: a consistent point in time, constant memory whatever the log's size.
 * ORDER BY names the table's columns: a bare `version` would bind to the `version::text` output column.
 */
async function* eventPages(client: pg.PoolClient, streamId: string | undefined): AsyncGenerator<Row[]> {
  let after: [string, number] = [streamId ?? '', 0];
  for (;;) {
    const result = await client.query<Row>(
      `SELECT stream_id, version::text, type, data, metadata, hash, recorded_at FROM events
        WHERE (stream_id, version) > ($1, $2::bigint) AND ($3::text IS NULL OR stream_id = $3)
        ORDER BY events.stream_id, events.version LIMIT $4`,
      [after[0], after[1], streamId ?? null, PAGE],
    );
    if (result.rows.length === 0) return;
    yield result.rows;
    const last = result.rows[result.rows.length - 1];
    after = [last.stream_id, Number(last.version)];
  }
}

/** `chronicle export [--session ID]`: NDJSON on stdout, progress on stderr. */
export async function exportCommand(db: CliDatabase, io: CliIo, options: { sessionId?: string }): Promise<number> {
  const streamId = options.sessionId === undefined ? undefined : toSessionStreamId(options.sessionId);
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // An export reads every session: on Citus, every shard.
    await allowFanOut(client, db.store.engine);
    const totals = await client.query(
      `SELECT coalesce(sum(version), 0)::text AS events, count(*)::int AS streams FROM streams
        WHERE $1::text IS NULL OR stream_id = $1`,
      [streamId ?? null],
    );
    if (streamId && totals.rows[0].streams === 0) {
      throw new CliError(EXIT.usage, `chronicle: session ${options.sessionId} was never started`);
    }
    const progress = createProgress({
      stream: io.stderr,
      tty: io.progressTty,
      label: 'export',
      unit: 'events',
      total: Number(totals.rows[0].events),
      now: io.now,
    });
    for await (const rows of eventPages(client, streamId)) {
      const firsts = rows.filter((row) => row.version === '1').map((row) => row.stream_id);
      const keys = db.keyring === null || firsts.length === 0 ? new Map() : await db.keyring.keysFor(firsts);
      const line = (row: Row) => {
        const key = row.version === '1' ? keys.get(row.stream_id) : undefined;
        return JSON.stringify(key === undefined ? toExportedEvent(row) : { ...toExportedEvent(row), dataKey: key.key.toString('base64') });
      };
      await writeLine(io.stdout, rows.map(line).join('\n'));
      progress.tick(rows.length);
    }
    progress.done(`from ${totals.rows[0].streams} stream(s)`);
    await client.query('COMMIT');
    return EXIT.ok;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
