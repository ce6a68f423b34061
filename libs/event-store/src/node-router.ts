import pg from 'pg';
// Not '#platform': its index loads the whole HTTP platform.
import { isPoolWaitTimeout } from '#platform/database-errors';
import { isStatementError } from './append-batch.outcomes.js';

/** Streams whose node is remembered (a stream's node changes only when its shard moves). */
const REMEMBERED = 100_000;

/**
 * Which Citus node group holds each stream's shard, as the cluster's metadata says (every node has it), cached:
 * the routed append sends one call per node, and the call refuses a stream that is not on its node (then the
 * store forgets the stream here and asks again). Read from `pg_dist_placement` on whichever node this process
 * is connected to: a metadata read, no shard is touched.
 */
export class NodeRouter {
  private readonly nodes = new Map<string, number>();
  /** A small pool to each node, for the calls of the streams it holds: they run there, with no hop. */
  private readonly pools = new Map<number, pg.Pool>();
  private addresses = new Map<number, NodeAddress>();

  constructor(private readonly pool: pg.Pool) {}

  /**
   * The pool of connections to a node itself (its address from `pg_dist_node`, the main pool's credentials): a
   * routed call sent there runs there; sent to another node, that node would forward it. The main pool when the
   * node's address is not known.
   */
  async poolFor(node: number): Promise<pg.Pool> {
    return (await this.directPool(node)) ?? this.pool;
  }

  /** The pool of connections to the node itself, or null when its address is not in the metadata. */
  async directPool(node: number): Promise<pg.Pool | null> {
    const known = this.pools.get(node);
    if (known) return known;
    if (!this.addresses.has(node)) {
      const result = await this.pool.query<{ groupid: number; nodename: string; nodeport: number }>(
        `SELECT groupid, nodename, nodeport FROM pg_dist_node WHERE noderole = 'primary' AND isactive`,
      );
      this.addresses = new Map(result.rows.map((row) => [row.groupid, { host: row.nodename, port: row.nodeport }]));
    }
    // Another call may have made the node's pool while this one read the addresses: one pool a node.
    const made = this.pools.get(node);
    if (made) return made;
    const address = this.addresses.get(node);
    if (!address) return null;
    const pool = poolAtNode(this.pool, address, 2);
    this.pools.set(node, pool);
    return pool;
  }

  /**
   * A node's own pool could not connect: dropped, with the addresses, so the next call reads `pg_dist_node` again.
   * A node's address changes when it fails over (`citus_update_node`); kept, the old one would be tried on every
   * call until the process restarts.
   */
  unreachable(node: number, pool: pg.Pool, error: unknown): void {
    // All of its clients busy is no failure of the node's (pg-pool's wait for a client ran out).
    if (this.pools.get(node) !== pool || isPoolWaitTimeout(error)) return;
    this.pools.delete(node);
    this.addresses = new Map();
    // Not ended: a call may still wait for one of its clients (an ended pool serves no waiter) or hold it to ask;
    // its idle clients close on their own (the pool's idle timeout), and nothing keeps the process up for them.
  }

  /**
   * A statement sent on a node's own pool failed: when the node gave no answer (not a statement PostgreSQL
   * refused: the connection failed, or timed out), the pool is dropped as `unreachable`. Rethrows the error.
   */
  gaveNoAnswer(node: number, pool: pg.Pool, error: unknown): never {
    if (!isStatementError(error)) this.unreachable(node, pool, error);
    throw error;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.end().catch(() => undefined)));
    this.pools.clear();
  }

  /** The node group of each stream. */
  async route(streamIds: readonly string[]): Promise<Map<string, number>> {
    const unknown = [...new Set(streamIds.filter((id) => !this.nodes.has(id)))];
    if (unknown.length > 0) {
      const result = await this.pool.query<{ stream_id: string; node: number | null }>({
        name: 'chronicle_route_streams',
        text: `SELECT s.stream_id,
                      (SELECT p.groupid FROM pg_dist_placement p
                        WHERE p.shardid = get_shard_id_for_distribution_column('streams', s.stream_id)
                        ORDER BY p.groupid LIMIT 1) AS node
                 FROM unnest($1::text[]) AS s(stream_id)`,
        values: [unknown],
      });
      for (const row of result.rows) {
        if (row.node === null) throw new Error(`no node holds the shard of stream ${row.stream_id}`);
        this.remember(row.stream_id, row.node);
      }
    }
    return new Map(streamIds.map((id) => [id, this.nodes.get(id) as number]));
  }

  forget(streamId: string): void {
    this.nodes.delete(streamId);
  }

  private remember(streamId: string, node: number): void {
    if (this.nodes.size >= REMEMBERED) {
      // Oldest first: a Map iterates in insertion order.
      const oldest = this.nodes.keys().next().value;
      if (oldest !== undefined) this.nodes.delete(oldest);
    }
    this.nodes.set(streamId, node);
  }
}

/** SQLSTATE of the routed append's refusal: a stream of the call is not on the node it ran on. */
export const NOT_ON_THIS_NODE = 'CHR01';

export interface NodeAddress {
  readonly host: string;
  readonly port: number;
}

/** A pool's own settings (user, password, database, TLS) at another node's address. */
export function atNode(options: pg.PoolConfig, address: NodeAddress): pg.PoolConfig {
  const { connectionString, ...rest } = options;
  if (!connectionString) return { ...rest, host: address.host, port: address.port };
  // A connection string's host and port would win over separate ones: the address goes into it.
  const url = new URL(connectionString);
  url.hostname = address.host;
  url.port = String(address.port);
  return { ...rest, connectionString: url.toString() };
}

/**
 * A small pool of connections to another node with `pool`'s settings. Idle connections do not keep the process
 * alive (a store nobody closes, a test's, lets it exit); a broken idle connection is dropped, never thrown.
 */
export function poolAtNode(pool: pg.Pool, address: NodeAddress, max: number): pg.Pool {
  const atAddress = new pg.Pool({ ...atNode(pool.options, address), max, allowExitOnIdle: true });
  atAddress.on('connect', (client) => client.on('error', () => undefined));
  atAddress.on('error', () => undefined);
  return atAddress;
}
