import type pg from 'pg';
import { poolAtNode } from './node-router.js';

/** What the database is: one PostgreSQL (or the embedded one), or a Citus cluster with Chronicle's tables distributed. */
export type DatabaseEngine = 'postgres' | 'citus';

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.ClientBase, 'query'>;

/** Citus when the extension is there and the migrations distributed `events` (a Citus node with local tables is one server). */
export async function detectEngine(db: Queryable): Promise<DatabaseEngine> {
  const extension = await db.query(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`);
  if (!extension.rows[0].citus) return 'postgres';
  const distributed = await db.query(
    `SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = to_regclass('events')) AS distributed`,
  );
  return distributed.rows[0].distributed ? 'citus' : 'postgres';
}

const engines = new WeakMap<object, Promise<DatabaseEngine>>();

/** The pool's engine, asked once (a failed answer is asked again next time). */
export function engineOf(pool: pg.Pool): Promise<DatabaseEngine> {
  let known = engines.get(pool);
  if (!known) {
    known = detectEngine(pool);
    engines.set(pool, known);
    known.catch(() => engines.delete(pool));
  }
  return known;
}

/**
 * What a cross-session statement sets for itself on Citus. The Citus test tier sets
 * `citus.multi_task_query_log_level` to `error` for every connection, so that any other statement touching more
 * than one shard fails: every per-session statement must run on the one shard that holds its session; this one
 * lifts it. And one connection to each worker for its tasks: by default Citus opens up to 16 per worker for a
 * multi-shard statement and keeps one, so a projector's page opened and closed connections every time (a
 * backend start each: ~23 connections a second on the bench's cluster).
 */
const ALLOW_FAN_OUT = `SET LOCAL citus.multi_task_query_log_level = 'off'; SET LOCAL citus.max_adaptive_executor_pool_size = 1`;

/**
 * Runs a statement that reads or writes many sessions at once (a session list, the recovery candidates, a
 * projector's page, a whole-store audit or export): on Citus it fans out to every shard, and is allowed to. On
 * one server it is an ordinary query.
 */
export function queryAcrossSessions<R extends pg.QueryResultRow = pg.QueryResultRow>(pool: pg.Pool, config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function queryAcrossSessions<R extends any[] = any[]>(pool: pg.Pool, config: pg.QueryArrayConfig): Promise<pg.QueryArrayResult<R>>;
export async function queryAcrossSessions(pool: pg.Pool, config: pg.QueryConfig | pg.QueryArrayConfig): Promise<pg.QueryResult | pg.QueryArrayResult> {
  if ((await engineOf(pool)) !== 'citus') return pool.query(config as pg.QueryConfig);
  const client = await pool.connect();
  try {
    return await acrossSessions(client, 'citus', () => client.query(config as pg.QueryConfig));
  } finally {
    client.release();
  }
}

/**
 * Runs `work` on `client` in one transaction in which cross-session statements are allowed (on Citus; on one
 * server a plain transaction). For a projector's page written with its checkpoint, a rebuild's swap.
 */
export async function acrossSessions<T>(client: pg.ClientBase, engine: DatabaseEngine, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    if (engine === 'citus') await client.query(ALLOW_FAN_OUT);
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Lifts the fan-out refusal inside a transaction the caller already opened (BEGIN sent), on Citus. */
export async function allowFanOut(client: pg.ClientBase, engine: DatabaseEngine): Promise<void> {
  if (engine === 'citus') await client.query(ALLOW_FAN_OUT);
}

const coordinators = new WeakMap<object, pg.Pool>();

/**
 * A connection on which to take an advisory lock that holds across the whole database: on Citus, one to the
 * coordinator (an advisory lock holds only on the node it is taken on, and replicas connect to any node, so
 * two replicas on two workers would both take "the" lock); on one server, one of the pool's. Where the
 * coordinator cannot be reached from here, one of the pool's: the work it guards is safe twice at once, only
 * wasteful. The caller releases it.
 */
export async function lockConnection(pool: pg.Pool): Promise<pg.PoolClient> {
  if ((await engineOf(pool)) !== 'citus') return pool.connect();
  let coordinator = coordinators.get(pool);
  if (!coordinator) {
    const { rows } = await pool.query<{ nodename: string; nodeport: number }>(
      `SELECT nodename, nodeport FROM pg_dist_node WHERE groupid = 0 AND noderole = 'primary'`,
    );
    if (rows.length === 0) return pool.connect();
    coordinator = poolAtNode(pool, { host: rows[0].nodename, port: rows[0].nodeport }, 4);
    coordinators.set(pool, coordinator);
  }
  return coordinator.connect().catch(() => pool.connect());
}
