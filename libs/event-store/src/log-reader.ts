import { createHash } from 'node:crypto';
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
/** An origin's order: by transaction id, then position (decimal strings). */
const byLogOrder = (a: LogRow, b: LogRow) => byNumber(a.transaction_id, b.transaction_id) || byNumber(a.global_position, b.global_position);
/** Reads of the nodes' own shards retried while placements change under them (a shard move), then an error. */
const PLACEMENT_ATTEMPTS = 5;

/** Where each shard of `events` is: its table's name by node group, and a key that changes with any placement. */
interface Placements {
  readonly byNode: Map<number, string[]>;
  readonly key: string;
}

/** The origins of the nodes that hold shards of `events`. */
const writersOf = (placements: Placements): string[] => [...placements.byNode.keys()].map(String);

/** A prepared statement's name for a text built at run time (a node's shard list): one per text and connection. */
function statementName(prefix: string, text: string): string {
  return `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
}

/** `undefined_table`: a shard read where it no longer is. */
function isMissingTable(error: unknown): boolean {
  return (error as { code?: string }).code === '42P01';
}

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
    const { fences, placements } = await this.fencesAndPlacements();
    const origins = await this.origins(after, placements === null ? ['0'] : writersOf(placements));
    if (this.router && placements !== null) {
      const local = await this.pageOnEachNode<R>(this.router, columns, after, limit, origins, fences, placements);
      if (local) return local;
    }
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
    const origins = await this.origins(after, []);
    if (this.router && origins.length > 0) {
      const local = await this.countOnEachNode(this.router, after, cap, origins);
      if (local !== null) return local;
    }
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

  /**
   * Citus: the page read on each node that holds shards of `events`, over its own shards, on a connection to that
   * node: one statement per node instead of one distributed query per origin over every shard. Read through
   * Citus, a page of nothing cost the nodes 30 ms of CPU at 32 shards and 2 origins (0.47 ms a shard task), as
   * much as ~40 single-event appends (bench/README.md). Each origin's rows from the nodes are merged in its order
   * and cut at `limit`, so the page is the distributed query's.
   *
   * Gap-safe as that query: the shards are read where the placement metadata says they are, and the metadata is
   * read again after the reads; if any placement changed (a shard move) the page is thrown away and read again,
   * so every shard was read at the placement that held all its committed rows. A shard table missing on its node
   * (moved and dropped) reads as a change. Null when a node has no address (then the distributed query reads).
   */
  private async pageOnEachNode<R extends LogRow>(
    router: NodeRouter,
    columns: string,
    after: LogCursor,
    limit: number,
    origins: readonly string[],
    fences: ReadonlyMap<string, string>,
    /** The placements read with the fences: the first attempt's (each retry reads them again). */
    first: Placements,
  ): Promise<LogPage<R> | null> {
    if (origins.length === 0) return { rows: [], checkpoint: after, more: false };
    for (let attempt = 1; ; attempt += 1) {
      const placements = attempt === 1 ? first : await this.placements();
      const nodes = [...placements.byNode];
      const pools = await Promise.all(nodes.map(([node]) => router.directPool(node)));
      if (pools.some((pool) => pool === null)) return null;
      let read: R[][];
      try {
        read = await Promise.all(
          nodes.map(([, shards], i) => {
            const values: unknown[] = [limit];
            const blocks = origins.map((origin) => {
              const from = after[origin] ?? { transactionId: '0', globalPosition: '0' };
              const at = values.length;
              values.push(origin, from.transactionId, from.globalPosition, fences.get(origin) ?? null);
              const arms = shards.map(
                (shard) => `(SELECT ${columns}, e.transaction_id AS log_tx, e.global_position AS log_gp FROM ${shard} e
                  WHERE e.origin = $${at + 1}::bigint AND (e.transaction_id, e.global_position) > ($${at + 2}::text::xid8, $${at + 3}::bigint)
                    AND ($${at + 4}::text IS NULL OR e.transaction_id < $${at + 4}::text::xid8)
                  ORDER BY e.transaction_id, e.global_position LIMIT $1)`,
              );
              // Ordered by the stored columns, so the shards' index scans merge (a Merge Append) and stop at the limit.
              return `(SELECT * FROM (${arms.join(' UNION ALL ')}) o ORDER BY o.log_tx, o.log_gp LIMIT $1)`;
            });
            const text = blocks.join(' UNION ALL ');
            return pools[i]!.query<R>({ name: statementName('chronicle_log_local', text), text, values }).then(
              (result) => result.rows,
              (error: unknown) => router.gaveNoAnswer(nodes[i]![0], pools[i]!, error),
            );
          }),
        );
      } catch (error) {
        if (!isMissingTable(error) || attempt >= PLACEMENT_ATTEMPTS) throw error;
        continue;
      }
      if ((await this.placements()).key !== placements.key) {
        if (attempt >= PLACEMENT_ATTEMPTS) throw new Error('the placements of events kept changing during the log read');
        continue;
      }
      const pages: R[][] = [];
      const checkpoint: Record<string, LogPosition> = { ...after };
      let more = false;
      for (const origin of origins) {
        const rows = read.flatMap((nodeRows) => nodeRows.filter((row) => row.origin === origin));
        rows.sort(byLogOrder);
        if (rows.length >= limit) more = true;
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        if (last) checkpoint[origin] = { transactionId: last.transaction_id, globalPosition: last.global_position };
        pages.push(page);
      }
      return { rows: interleave(pages), checkpoint, more };
    }
  }

  /** Citus: `countPast` as one statement on each node over its own shards (a gauge: no placement re-check). */
  private async countOnEachNode(router: NodeRouter, after: LogCursor, cap: number, origins: readonly string[]): Promise<number | null> {
    for (let attempt = 1; ; attempt += 1) {
      const { byNode } = await this.placements();
      const nodes = [...byNode];
      const pools = await Promise.all(nodes.map(([node]) => router.directPool(node)));
      if (pools.some((pool) => pool === null)) return null;
      try {
        const counts = await Promise.all(
          nodes.map(([, shards], i) => {
            const values: unknown[] = [cap];
            const arms = origins.flatMap((origin) => {
              const from = after[origin] ?? { transactionId: '0', globalPosition: '0' };
              const at = values.length;
              values.push(origin, from.transactionId, from.globalPosition);
              return shards.map(
                (shard) => `(SELECT 1 FROM ${shard} e
                  WHERE e.origin = $${at + 1}::bigint AND (e.transaction_id, e.global_position) > ($${at + 2}::text::xid8, $${at + 3}::bigint)
                  LIMIT $1)`,
              );
            });
            const text = `SELECT count(*)::int AS lag FROM (SELECT 1 FROM (${arms.join(' UNION ALL ')}) past LIMIT $1) behind`;
            return pools[i]!.query<{ lag: number }>({ name: statementName('chronicle_log_count', text), text, values }).then(
              (result) => result.rows[0].lag,
              (error: unknown) => router.gaveNoAnswer(nodes[i]![0], pools[i]!, error),
            );
          }),
        );
        return Math.min(cap, counts.reduce((a, b) => a + b, 0));
      } catch (error) {
        if (!isMissingTable(error) || attempt >= PLACEMENT_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Where each shard of `events` is (one placement each, the lowest node group as `NodeRouter` routes), read from
   * the metadata of the node this process is connected to, and a key that changes with any placement.
   */
  private async placements(): Promise<Placements> {
    const result = await this.pool.query<{ shardid: string; groupid: number; name: string }>({
      name: 'chronicle_log_placements',
      text: `SELECT DISTINCT ON (s.shardid) s.shardid::text AS shardid, p.groupid, shard_name(s.logicalrelid, s.shardid) AS name
               FROM pg_dist_shard s JOIN pg_dist_placement p ON p.shardid = s.shardid
              WHERE s.logicalrelid = 'events'::regclass
              ORDER BY s.shardid, p.groupid`,
    });
    const byNode = new Map<number, string[]>();
    for (const row of result.rows) byNode.set(row.groupid, [...(byNode.get(row.groupid) ?? []), row.name]);
    return { byNode, key: result.rows.map((row) => `${row.shardid}@${row.groupid}`).join(',') };
  }

  /** Each node's fence, by origin. */
  async fences(): Promise<Map<string, string>> {
    return (await this.fencesAndPlacements()).fences;
  }

  /**
   * Each node's fence, by origin, and on Citus where the shards of `events` are. The nodes that hold them are the
   * origins that can be writing events now (the routed append writes only on the node of the stream's shard, with
   * that node's origin); a page reads those origins, the cursor's and the ones found in `events`, so a node
   * without an `events` shard (the coordinator, as a rule) costs no page read. An origin skipped because its node
   * took a shard after this read keeps its cursor, so its events are read by a later page, never passed over.
   */
  private async fencesAndPlacements(): Promise<{ fences: Map<string, string>; placements: Placements | null }> {
    if (this.engine === 'postgres') {
      const result = await this.pool.query<{ xmin: string }>(`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`);
      return { fences: new Map([['0', result.rows[0].xmin]]), placements: null };
    }
    // Each node's own, asked on a connection to that node; through Citus (which connects every node to the
    // others) where a node cannot be reached from here.
    const nodes = await this.pool.query<{ origin: string }>(`SELECT groupid::text AS origin FROM pg_dist_node WHERE noderole = 'primary' AND isactive`);
    const placements = await this.placements();
    try {
      const fences = await Promise.all(
        nodes.rows.map(async ({ origin }) => {
          const direct = await this.router?.directPool(Number(origin));
          if (!direct) throw new Error(`node group ${origin} has no address`);
          const { rows } = await direct
            .query<{ xmin: string }>(`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`)
            .catch((error: unknown) => this.router!.gaveNoAnswer(Number(origin), direct, error));
          return [origin, rows[0].xmin] as const;
        }),
      );
      return { fences: new Map(fences), placements };
    } catch {
      return { fences: await this.fencesThroughCitus(), placements };
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

  /** The origins to read: the writing nodes', the cursor's, and any other found in `events` (looked for once a minute). */
  private async origins(after: LogCursor, writers: readonly string[]): Promise<string[]> {
    const now = Date.now();
    if (this.discovered === null || now - this.discovered.at > DISCOVERY_MS) {
      this.discovered = { at: now, origins: await this.discover() };
    }
    return [...new Set([...writers, ...Object.keys(after), ...this.discovered.origins])].sort(byNumber);
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
