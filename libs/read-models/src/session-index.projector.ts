import type pg from 'pg';
import { fromSessionStreamId } from '#domain';
import { type Checkpoint, type EventStore, START } from '#event-store';
import type { SessionViews } from './session-views.js';

export const SESSION_INDEX = 'session_index';
/** Any fixed key: one replica at a time runs the projector (a rebuild's swap takes it too). */
export const SESSION_INDEX_PROJECTOR_LOCK = 727_101;

export interface ProjectorOptions {
  readonly batchSize?: number;
  readonly onLag?: (events: number) => void;
  readonly onError?: (error: unknown) => void;
}

/**
 * The async `session_index` projector: reads the log in commit-safe order (`readAll`, xid8-fenced),
 * re-renders the summary of every session it touched and upserts its index row, moving the checkpoint
 * in the same transaction.
 */
export class SessionIndexProjector {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private wanted = false;
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly store: EventStore,
    private readonly views: SessionViews,
    private readonly options: ProjectorOptions = {},
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => this.poke(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Ask for a pass soon (after a local append); passes never overlap. */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wanted = true;
      return;
    }
    this.running = this.catchUp()
      .catch((error: unknown) => {
        this.options.onError?.(error);
        return 0;
      })
      .finally(() => {
        this.running = null;
        if (this.wanted) {
          this.wanted = false;
          this.poke();
        }
      });
  }

  /** Processes everything visible now; returns how many events it read. */
  async catchUp(): Promise<number> {
    const client = await this.pool.connect();
    try {
      const lock = await client.query('SELECT pg_try_advisory_lock($1) AS ok', [SESSION_INDEX_PROJECTOR_LOCK]);
      if (!lock.rows[0].ok) return 0;
      try {
        let total = 0;
        for (;;) {
          const read = await this.pass(client);
          total += read;
          if (read === 0) break;
        }
        await this.reportLag(client);
        return total;
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [SESSION_INDEX_PROJECTOR_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  private async pass(client: pg.PoolClient): Promise<number> {
    const checkpoint = await readCheckpoint(client, SESSION_INDEX);
    const { events, checkpoint: next } = await this.store.readAll({ after: checkpoint, limit: this.options.batchSize ?? 500 });
    if (events.length === 0) return 0;
    const sessions = new Set<string>();
    for (const event of events) {
      const sessionId = fromSessionStreamId(event.streamId);
      if (sessionId) sessions.add(sessionId);
    }
    const rows = [];
    for (const sessionId of sessions) {
      const { version, view, exists } = await this.views.view(sessionId);
      if (exists) rows.push({ sessionId, version, summary: view.summary });
    }
    await client.query('BEGIN');
    try {
      for (const row of rows) await upsertIndexRow(client, SESSION_INDEX, row.sessionId, row.version, row.summary);
      await writeCheckpoint(client, SESSION_INDEX, next);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
    return events.length;
  }

  private async reportLag(client: pg.PoolClient): Promise<void> {
    if (!this.options.onLag) return;
    const checkpoint = await readCheckpoint(client, SESSION_INDEX);
    const result = await client.query(
      `SELECT count(*)::int AS lag FROM events WHERE global_position > $1::bigint`,
      [checkpoint.globalPosition],
    );
    this.options.onLag(result.rows[0].lag);
  }
}

export async function readCheckpoint(client: pg.ClientBase, name: string): Promise<Checkpoint> {
  const result = await client.query(
    `SELECT transaction_id::text, global_position::text FROM projection_checkpoints WHERE name = $1`,
    [name],
  );
  const row = result.rows[0];
  return row ? { transactionId: row.transaction_id, globalPosition: row.global_position } : START;
}

export async function writeCheckpoint(client: pg.ClientBase, name: string, checkpoint: Checkpoint): Promise<void> {
  await client.query(
    `INSERT INTO projection_checkpoints (name, transaction_id, global_position) VALUES ($1, $2::text::xid8, $3)
     ON CONFLICT (name) DO UPDATE SET transaction_id = EXCLUDED.transaction_id,
       global_position = EXCLUDED.global_position, updated_at = now()`,
    [name, checkpoint.transactionId, checkpoint.globalPosition],
  );
}

export interface IndexSummary {
  readonly title: string | null;
  readonly parentSessionId: string | null;
  readonly archived: boolean;
  readonly createdAt: number | null;
  readonly lastActivityAt: number | null;
  readonly messageCount: number;
  readonly status: string;
}

export async function upsertIndexRow(
  client: pg.ClientBase,
  table: string,
  sessionId: string,
  version: number,
  summary: IndexSummary,
): Promise<void> {
  await client.query(
    `INSERT INTO ${table} (session_id, title, parent_session_id, status, archived, version, created_at,
                           last_activity_at, message_count)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (session_id) DO UPDATE SET title = EXCLUDED.title, parent_session_id = EXCLUDED.parent_session_id,
       status = EXCLUDED.status, archived = EXCLUDED.archived, version = EXCLUDED.version,
       created_at = EXCLUDED.created_at, last_activity_at = EXCLUDED.last_activity_at,
       message_count = EXCLUDED.message_count, updated_at = now()
     WHERE ${table}.version <= EXCLUDED.version`,
    [
      sessionId,
      summary.title,
      summary.parentSessionId,
      summary.status,
      summary.archived,
      version,
      summary.createdAt,
      summary.lastActivityAt,
      summary.messageCount,
    ],
  );
}
