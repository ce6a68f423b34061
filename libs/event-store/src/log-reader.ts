import type pg from 'pg';
import { type DatabaseEngine, queryAcrossSessions } from './database-engine.js';
import type { LogCursor, LogPosition } from './event-store.js';
import type { NodeRouter } from './node-router.js';

/** How often the origins present in `events` are looked for again (new nodes are found sooner, by their fences). */
const DISCOVERY_MS = 60_000;

/** The row every page read returns at least: where the event sits. */
export interface LogRow {
  readonly stream_id: string;
  readonly version: string;
  readonly origin: string;
  readonly transaction_id: string;
  readonly global_position: string;
}

export interface LogPage<R extends LogRow> {
  readonly rows: readonly R[];
  readonly checkpoint: LogCursor;
  readonly more: boolean;
}

const byNumber = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

/**
 * The gap-safe read of the log, per origin (see `LogCursor`). Before a page it reads each node's fence: the
 * oldest transaction still running there (`pg_snapshot_xmin`), evaluated on that node against its own
 * transaction ids. Every transaction of that node below its fence had ended when the fence was read, so the
 * node's events below it are all visible to the page read after it, and the page never reads past one that
 * may still commit. On one server that is one node, origin "0"; on Citus every node (the coordinator, group 0,
 * and each worker, its group id) answers through `run_command_on_all_nodes`, and a node that cannot answer stops the read (it is
 * retried by the caller): an origin without a fence is read unfenced only when every node answered, because
 * then its events were written elsewhere and copied in, whole (a shard moved from a removed node, a restore).
 */
export class LogReader {
  private discovered: { readonly at: number; readonly origins: readonly string[] } | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly engine: DatabaseEngine,
    /** On Citus: the pools to each node, on which each node's fence is read directly. */
    private readonly router: NodeRouter | null = null,
  ) {}

  /** Up to `limit` events of each origin after `after`, each origin's in its order, the origins' taken in turn. */
  async page<R extends LogRow>(columns: string, after: LogCursor, limit: number): Promise<LogPage<R>> {
    const fences = await this.fences();
    const origins = await this.origins(after, fences);
    const pages: R[][] = [];
    const checkpoint: Record<string, LogPosition> = { ...after };
    let more = false;
    for (const origin of origins) {
      const from = after[origin] ?? { transactionId: '0', globalPosition: '0' };
      const result = await queryAcrossSessions<R>(this.pool, {
        name: `chronicle_log_page_${columns === LOG_POSITION_COLUMNS ? 'positions' : 'events'}`,
        text: `SELECT ${columns} FROM events e
                WHERE e.origin = $1::bigint AND (e.transaction_id, e.global_position) > ($2::text::xid8, $3::bigint)
                  AND ($4::text IS NULL OR e.transaction_id < $4::text::xid8)
                ORDER BY e.transaction_id, e.global_position
                LIMIT $5`,
        values: [origin, from.transactionId, from.globalPosition, fences.get(origin) ?? null, limit],
      });
      const last = result.rows.at(-1);
      if (last) checkpoint[origin] = { transactionId: last.transaction_id, globalPosition: last.global_position };
      if (result.rows.length === limit) more = true;
      pages.push(result.rows);
    }
    return { rows: interleave(pages), checkpoint, more };
  }

  /** Events past `after` (fenced or not), counted up to `cap`: each origin's count walks its index over the lag only. */
  async countPast(after: LogCursor, cap: number): Promise<number> {
    const origins = await this.origins(after, new Map());
    let total = 0;
    for (const origin of origins) {
      if (total >= cap) break;
      const from = after[origin] ?? { transactionId: '0', globalPosition: '0' };
      const result = await queryAcrossSessions<{ lag: number }>(this.pool, {
        text: `SELECT count(*)::int AS lag FROM (
                 SELECT 1 FROM events e
                  WHERE e.origin = $1::bigint AND (e.transaction_id, e.global_position) > ($2::text::xid8, $3::bigint)
                  LIMIT $4) behind`,
        values: [origin, from.transactionId, from.globalPosition, cap - total],
      });
      total += result.rows[0].lag;
    }
    return Math.min(total, cap);
  }

  /** Each node's fence, by origin. */
  async fences(): Promise<Map<string, string>> {
    if (this.engine === 'postgres') {
      const result = await this.pool.query<{ xmin: string }>(`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`);
      return new Map([['0', result.rows[0].xmin]]);
    }
    // Each node's own, asked on a connection to that node; through Citus (which connects every node to the
    // others) where a node cannot be reached from here.
    const nodes = await this.pool.query<{ origin: string }>(`SELECT groupid::text AS origin FROM pg_dist_node WHERE noderole = 'primary' AND isactive`);
    try {
      const fences = await Promise.all(
        nodes.rows.map(async ({ origin }) => {
          const direct = await this.router?.directPool(Number(origin));
          if (!direct) throw new Error(`node group ${origin} has no address`);
          const { rows } = await direct.query<{ xmin: string }>(`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`);
          return [origin, rows[0].xmin] as const;
        }),
      );
      return new Map(fences);
    } catch {
      return this.fencesThroughCitus();
    }
  }

  private async fencesThroughCitus(): Promise<Map<string, string>> {
    const result = await this.pool.query<{ origin: string; nodename: string; nodeport: number; success: boolean; result: string }>(
      `SELECT n.groupid::text AS origin, n.nodename, n.nodeport, r.success, r.result
         FROM run_command_on_all_nodes($$SELECT pg_snapshot_xmin(pg_current_snapshot())::text$$) r
         JOIN pg_dist_node n ON n.nodeid = r.nodeid
        WHERE n.noderole = 'primary'`,
    );
    const fences = new Map<string, string>();
    for (const row of result.rows) {
      if (!row.success) throw new Error(`the log's fence of node ${row.nodename}:${row.nodeport} cannot be read: ${row.result}`);
      fences.set(row.origin, row.result);
    }
    return fences;
  }

  /** The origins to read: the nodes', the cursor's, and any other found in `events` (looked for once a minute). */
  private async origins(after: LogCursor, fences: ReadonlyMap<string, string>): Promise<string[]> {
    const now = Date.now();
    if (this.discovered === null || now - this.discovered.at > DISCOVERY_MS) {
      this.discovered = { at: now, origins: await this.discover() };
    }
    return [...new Set([...fences.keys(), ...Object.keys(after), ...this.discovered.origins])].sort(byNumber);
  }

  /** Every origin present in `events`, by a loose scan of `events_read_all` (one short index probe per origin). */
  private async discover(): Promise<string[]> {
    const origins: string[] = [];
    for (let last: string | null = null; ; ) {
      const result: pg.QueryResult<{ origin: string | null }> = await queryAcrossSessions(this.pool, {
        text: `SELECT min(e.origin)::text AS origin FROM events e WHERE $1::bigint IS NULL OR e.origin > $1::bigint`,
        values: [last],
      });
      const next = result.rows[0]?.origin ?? null;
      if (next === null) return origins;
      origins.push(next);
      last = next;
    }
  }
}

/**
 * The origins' pages taken in turn, one event of each: each origin keeps its own order, so any prefix of the
 * result is a prefix of every origin's page (a reader that handles only the first events of a page moves each
 * origin's cursor past what it handled, `advanceCursor`), and a busy node does not make a reader that stops
 * early wait behind it.
 */
function interleave<R>(pages: readonly (readonly R[])[]): R[] {
  if (pages.length === 1) return [...pages[0]];
  const out: R[] = [];
  const longest = Math.max(0, ...pages.map((page) => page.length));
  for (let i = 0; i < longest; i += 1) for (const page of pages) if (i < page.length) out.push(page[i]);
  return out;
}

/** The columns of `readPositions`. */
export const LOG_POSITION_COLUMNS = `e.stream_id, e.version::text AS version, e.origin::text AS origin,
  e.transaction_id::text AS transaction_id, e.global_position::text AS global_position`;
