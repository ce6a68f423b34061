import type pg from 'pg';
import { fromSessionStreamId, toSessionStreamId } from '#domain';
import { acrossSessions, type DatabaseEngine, type DataKey, engineOf, type EventStore, lockConnection, type LogCursor } from '#event-store';
import { advanceCheckpoint, readCheckpoint } from '../projection-checkpoints.js';
import type { SessionViews } from '../session-views.js';
import { sealRowContent } from '../read-model-content.js';
import { indexRowOf, type StoredIndexRow } from './index-row.builder.js';
import { tallied, type WorkTally } from '../work-tally.js';

export const SESSION_INDEX = 'session_index';
/** The lag metric counts up to this many events (a projector that far behind is simply "far behind"). */
export const LAG_CAP = 100_000;
/** Any fixed key: one replica at a time runs the projector (a rebuild's swap takes it too). */
export const SESSION_INDEX_PROJECTOR_LOCK = 727_101;

export interface ProjectorOptions {
  readonly batchSize?: number;
  /** Pokes within this window coalesce into one pass (default 100 ms on one server, 500 on Citus: see `poke`). */
  readonly debounceMs?: number;
  /** Events the checkpoint trails the log by (at most LAG_CAP); measured on every timer tick, not after every pass. */
  readonly onLag?: (events: number) => void;
  /** Seconds of each pass's own synchronous work (rendering, building its rows): its share of the process's CPU. */
  readonly onPass?: (seconds: number, events: number) => void;
  readonly onError?: (error: unknown) => void;
  /** The sessions' data keys: each row's title and pending prompt are stored sealed (none: plain). */
  readonly keys?: DataKeySource | null;
}

/**
 * The async `session_index` projector: reads the log in commit-safe order (`readAll`, xid8-fenced), renders
 * each session the page touched once (at its newest version; the view cache usually holds it already) and
 * writes every index row and the checkpoint in one statement. The checkpoint is read once per catch-up:
 * while this replica holds the advisory lock nobody else moves it.
 */
export class SessionIndexProjector {
  private timer: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private wanted = false;
  private lagWanted = false;
  private stopped = false;
  /** Known after the first pass (the pool's engine); until then one server's window. */
  private engine: DatabaseEngine = 'postgres';

  constructor(
    private readonly pool: pg.Pool,
    private readonly store: EventStore,
    private readonly views: SessionViews,
    private readonly options: ProjectorOptions = {},
  ) {}

  /** Runs a pass and reports the lag every `intervalMs` (the safety net behind pokes, and the lag metric). */
  start(intervalMs: number): void {
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.timer = null;
    this.debounce = null;
    await this.running;
  }

  /**
   * Ask for a pass soon (after an append): pokes within the window coalesce into one; passes never overlap.
   * On Citus a pass is a cluster-wide operation whatever its size (a fence read on every node, a page read per
   * origin over every shard, a two-phase commit of the rows and the reference-table checkpoint), so the window is
   * five times one server's: at 16 clients of 1-event POSTs a 100 ms window made ~3 passes a second, whose reads
   * were the heaviest statement on the worker the projector's replica used (bench/README.md).
   */
  poke(): void {
    if (this.stopped || this.debounce) return;
    this.debounce = setTimeout(
      () => {
        this.debounce = null;
        this.run();
      },
      this.options.debounceMs ?? (this.engine === 'citus' ? 500 : 100),
    );
    this.debounce.unref();
  }

  private tick(): void {
    this.lagWanted = true;
    this.run();
  }

  /** Starts a pass now, or right after the one running (which may have missed what asked for this one). */
  private run(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wanted = true;
      return;
    }
    const lag = this.lagWanted;
    this.lagWanted = false;
    this.running = (async () => {
      await this.catchUp();
      if (lag) await this.reportLag();
    })()
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.running = null;
        // What arrived during the pass waits for the debounce too: under a steady stream of appends the
        // projector runs a pass per window, not back to back.
        if (this.wanted) {
          this.wanted = false;
          this.poke();
        }
      });
  }

  /** Processes everything visible now; returns how many events it read (0 when another replica holds the projector). */
  async catchUp(): Promise<number> {
    // On Citus, on the coordinator: one projector for the cluster, whichever node each replica connects to.
    this.engine = await engineOf(this.pool);
    const client = await lockConnection(this.pool);
    try {
      const lock = await client.query('SELECT pg_try_advisory_lock($1) AS ok', [SESSION_INDEX_PROJECTOR_LOCK]);
      if (!lock.rows[0].ok) return 0;
      try {
        let checkpoint = await readCheckpoint(client, SESSION_INDEX);
        let total = 0;
        // Another page only when one of this page's origins was full: under a steady stream of appends a short
        // page means "caught up", and the next pass waits for the debounce instead of chasing every new event.
        const limit = this.options.batchSize ?? 500;
        for (;;) {
          const { read, next, more } = await this.pass(client, checkpoint, limit);
          total += read;
          checkpoint = next;
          if (!more) break;
        }
        return total;
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [SESSION_INDEX_PROJECTOR_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  private async pass(client: pg.PoolClient, checkpoint: LogCursor, limit: number): Promise<{ read: number; next: LogCursor; more: boolean }> {
    // Positions only: the rows are rendered from the views, so the page's data is never needed here.
    const { positions: events, checkpoint: next, more } = await this.store.readPositions({ after: checkpoint, limit });
    if (events.length === 0) return { read: 0, next, more: false };
    const started = performance.now();
    const sessions = new Map<string, number>();
    for (const event of events) {
      const sessionId = fromSessionStreamId(event.streamId);
      if (sessionId) sessions.set(sessionId, Math.max(sessions.get(sessionId) ?? 0, event.version));
    }
    const rows: IndexRowWrite[] = [];
    // The pass's own time: its synchronous work only (the folds and renders done for it, building its rows), not
    // the waits (a session's tail read from the store, the yields below) during which the process serves
    // requests, or its share of the process's CPU would count theirs.
    const tally: WorkTally = { ms: performance.now() - started };
    for (const [sessionId, seen] of sessions) {
      const { version, view, exists } = await this.views.viewAtLeast(sessionId, seen, tally);
      if (exists) tallied(tally, () => rows.push({ sessionId, row: indexRowOf(view, version) }));
      // A render is synchronous: let waiting requests in between two, so a pass does not hold the event loop.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The keys first (a key store query when not cached): waiting for them is not the pass's own work.
    const sealed = await withDataKeys(this.options.keys, rows);
    // The rows and the checkpoint past them commit together (on Citus, one transaction across the shards).
    const engine = await engineOf(this.pool);
    await acrossSessions(client, engine, async () => {
      await writeIndexRows(client, engine, SESSION_INDEX, sealed, tally);
      await advanceCheckpoint(client, SESSION_INDEX, next);
    });
    this.options.onPass?.(tally.ms / 1000, events.length);
    return { read: events.length, next, more };
  }

  /** A count over the events past the checkpoint: only from the timer tick. */
  private async reportLag(): Promise<void> {
    if (!this.options.onLag) return;
    this.options.onLag(await this.store.countPast(await readCheckpoint(this.pool, SESSION_INDEX), LAG_CAP));
  }
}

export interface IndexRowWrite {
  readonly sessionId: string;
  readonly row: StoredIndexRow;
  /** The session's data key: the row's title and pending prompt are stored sealed with it (none: plain). */
  readonly dataKey?: Buffer | null;
}

/** Where the writers of index rows find each session's data key (the sealing store's `SessionKeyring`). */
export interface DataKeySource {
  keysFor(streamIds: readonly string[]): Promise<Map<string, DataKey>>;
}

/** The rows with their sessions' data keys (one key store query for the ones not cached); as they are without a key source. */
export async function withDataKeys(keys: DataKeySource | null | undefined, rows: readonly IndexRowWrite[]): Promise<IndexRowWrite[]> {
  if (!keys || rows.length === 0) return [...rows];
  const found = await keys.keysFor(rows.map((r) => toSessionStreamId(r.sessionId)));
  return rows.map((r) => ({ ...r, dataKey: found.get(toSessionStreamId(r.sessionId))?.key ?? null }));
}

/**
 * Upserts rows built by `indexRowOf`, never moving a row back to an older version, inside the caller's
 * `acrossSessions` transaction; building the statement's values (each row's content sealed) counts to `tally`.
 * A row's key is its session's stream id (on Citus it sits on the stream's shard).
 *
 * One server takes the rows as arrays (`unnest`: one statement text whatever their number). On Citus an
 * `INSERT … SELECT FROM unnest(…)` is a distributed INSERT … SELECT, its rows gathered as intermediate results
 * and copied to each shard: 46–48 ms for 5 rows and ~330 ms for 50 on a local coordinator + 2 workers, against
 * 4.7–6.6 and 13–16 ms as one multi-row `VALUES` (bench/README.md), which Citus splits by shard itself.
 */
export async function writeIndexRows(
  client: pg.ClientBase,
  engine: DatabaseEngine,
  table: string,
  rows: readonly IndexRowWrite[],
  tally?: WorkTally,
): Promise<void> {
  if (rows.length === 0) return;
  const upsert = `ON CONFLICT (stream_id) DO UPDATE SET title = EXCLUDED.title, parent_session_id = EXCLUDED.parent_session_id,
             status = EXCLUDED.status, archived = EXCLUDED.archived, version = EXCLUDED.version,
             created_at = EXCLUDED.created_at, last_activity_at = EXCLUDED.last_activity_at,
             message_count = EXCLUDED.message_count, pending_turn = EXCLUDED.pending_turn, markers = EXCLUDED.markers,
             sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at
           WHERE ${table}.version <= EXCLUDED.version`;
  const columns = `INSERT INTO ${table} (stream_id, session_id, title, parent_session_id, status, archived, version, created_at,
                                 last_activity_at, message_count, pending_turn, markers, sealed)`;
  const tuple = ({ sessionId, row, dataKey }: IndexRowWrite) => {
    const streamId = toSessionStreamId(sessionId);
    const r = sealRowContent(dataKey ?? null, streamId, 'index', row);
    return [
      streamId,
      sessionId,
      r.title,
      r.parentSessionId,
      r.status,
      r.archived,
      r.version,
      r.createdAt,
      r.lastActivityAt,
      r.messageCount,
      r.pendingTurn === null ? null : JSON.stringify(r.pendingTurn),
      JSON.stringify(r.markers),
      r.sealed ?? null,
    ];
  };
  // Across sessions: the caller runs it inside `acrossSessions` (on Citus it writes to many shards).
  if (engine === 'citus') {
    for (let from = 0; from < rows.length; from += VALUES_ROWS) {
      const chunk = rows.slice(from, from + VALUES_ROWS);
      const values: unknown[] = [];
      const tuples = tallied(tally, () =>
        chunk.map((row) => {
          const at = values.length;
          values.push(...tuple(row));
          const p = (i: number) => `$${at + i}`;
          return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}::boolean, ${p(7)}::bigint, ${p(8)}::float8, ${p(9)}::float8, ${p(10)}::int, ${p(11)}::jsonb, ${p(12)}::jsonb, ${p(13)})`;
        }),
      );
      await client.query(`${columns} VALUES ${tuples.join(', ')} ${upsert}`, values);
    }
    return;
  }
  const columnsOfRows = tallied(tally, () => {
    const tuples = rows.map(tuple);
    return Array.from({ length: 13 }, (_, i) => tuples.map((t) => t[i]));
  });
  await client.query(
    `${columns}
           SELECT t.stream_id, t.session_id, t.title, t.parent_session_id, t.status, t.archived, t.version, t.created_at,
                  t.last_activity_at, t.message_count, t.pending_turn::jsonb, t.markers::jsonb, t.sealed
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::bigint[], $8::float8[],
                         $9::float8[], $10::int[], $11::text[], $12::text[], $13::text[])
                  AS t(stream_id, session_id, title, parent_session_id, status, archived, version, created_at, last_activity_at,
                       message_count, pending_turn, markers, sealed)
           ${upsert}`,
    columnsOfRows,
  );
}

/** Rows per multi-row INSERT on Citus: 13 parameters each, far under the protocol's 65,535. */
const VALUES_ROWS = 1000;
