import { onNode as on } from './support/citus-streams.js';
import { knownMigrationNames } from '#platform';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  citusClusterFromEnv,
  createCitusDatabase,
  killNode,
  nodeUrl,
  postmasterPid,
  startCitusCluster,
  startNode,
  stopCitusCluster,
  stopNode,
  type CitusCluster,
} from '../support/test-citus.mjs';

/** What the Citus tier promises every test file (test/support/test-citus.mjs, database.ts, global-setup.mjs). */


const rows = (url: string, sql: string, params: unknown[] = []) => on(url, async (c) => (await c.query(sql, params)).rows);

describe('the citus tier', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await on(database.url, async (c) => {
      await c.query('CREATE TABLE tier_probe (key text PRIMARY KEY, value int NOT NULL)');
      await c.query(`SELECT create_distributed_table('tier_probe', 'key')`);
      for (let i = 0; i < 40; i++) await c.query('INSERT INTO tier_probe VALUES ($1, $2)', [`k${i}`, i]);
    });
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('gives a test file its own database on the coordinator and both workers', () => {
    const cluster = citusClusterFromEnv();
    const name = new URL(database.url).pathname.slice(1);
    expect(database.engine).toBe('citus');
    expect(database.url).toBe(nodeUrl(cluster, 'coordinator', name));
    expect(database.workerUrls).toEqual([nodeUrl(cluster, 'worker1', name), nodeUrl(cluster, 'worker2', name)]);
  });

  it('has two active workers and the coordinator registered in it', async () => {
    const cluster = citusClusterFromEnv();
    const port = (name: 'coordinator' | 'worker1' | 'worker2') => cluster.nodes.find((n) => n.name === name)!.port;
    const workers = await rows(database.url, 'SELECT node_port FROM citus_get_active_worker_nodes() ORDER BY node_port');
    expect(workers.map((w) => Number(w.node_port))).toEqual([port('worker1'), port('worker2')].sort((a, b) => a - b));
    const nodes = await rows(database.url, 'SELECT nodeport, groupid, isactive, hasmetadata, metadatasynced FROM pg_dist_node ORDER BY groupid');
    expect(nodes).toEqual([
      { nodeport: port('coordinator'), groupid: 0, isactive: true, hasmetadata: true, metadatasynced: true },
      expect.objectContaining({ groupid: 1, isactive: true, hasmetadata: true, metadatasynced: true }),
      expect.objectContaining({ groupid: 2, isactive: true, hasmetadata: true, metadatasynced: true }),
    ]);
  });

  it('has the citus extension and the refusal of multi-shard queries on every node of the database', async () => {
    for (const url of [database.url, ...database.workerUrls]) {
      expect(await rows(url, `SELECT extversion FROM pg_extension WHERE extname = 'citus'`)).toEqual([{ extversion: expect.stringMatching(/^13\./) }]);
      expect(await rows(url, 'SHOW citus.multi_task_query_log_level')).toEqual([{ 'citus.multi_task_query_log_level': 'error' }]);
    }
  });

  it('is migrated: a clone of the template the migrations ran on through the coordinator', async () => {
    const applied = await rows(database.url, 'SELECT name FROM typeorm_migrations ORDER BY id');
    expect(applied.map((m) => m.name)).toEqual(knownMigrationNames);
  });

  it('spreads a distributed table it creates over both workers', async () => {
    const placements = await on(database.url, async (c) => {
      await c.query('BEGIN');
      try {
        // citus_shards reads every shard's size: itself a multi-task query, lifted for this transaction only.
        await c.query(`SET LOCAL citus.multi_task_query_log_level = 'off'`);
        return (await c.query(`SELECT DISTINCT nodeport FROM citus_shards WHERE table_name = 'tier_probe'::regclass`)).rows;
      } finally {
        await c.query('COMMIT');
      }
    });
    expect(placements).toHaveLength(2);
  });

  it('refuses a multi-shard query, and runs it once a transaction lifts the refusal with SET LOCAL', async () => {
    await expect(rows(database.url, 'SELECT count(*)::int AS n FROM tier_probe')).rejects.toThrow('multi-task query about to be executed');
    const lifted = await on(database.url, async (c) => {
      await c.query('BEGIN');
      await c.query(`SET LOCAL citus.multi_task_query_log_level = 'off'`);
      const result = await c.query('SELECT count(*)::int AS n, sum(value)::int AS total FROM tier_probe');
      await c.query('COMMIT');
      return result.rows;
    });
    expect(lifted).toEqual([{ n: 40, total: 780 }]);
  });

  it('runs single-shard statements on the coordinator', async () => {
    await on(database.url, async (c) => {
      await c.query('INSERT INTO tier_probe VALUES ($1, $2)', ['single', 1]);
      await c.query('UPDATE tier_probe SET value = value + 1 WHERE key = $1', ['single']);
      expect((await c.query('SELECT value FROM tier_probe WHERE key = $1', ['single'])).rows).toEqual([{ value: 2 }]);
    });
  });

  it('takes queries on any node: a worker reads and writes any shard, under the same refusal', async () => {
    const [worker1, worker2] = database.workerUrls;
    expect(await rows(worker1!, 'SELECT value FROM tier_probe WHERE key = $1', ['k7'])).toEqual([{ value: 7 }]);
    await rows(worker2!, 'INSERT INTO tier_probe VALUES ($1, $2)', ['from-worker2', 42]);
    expect(await rows(worker1!, 'SELECT value FROM tier_probe WHERE key = $1', ['from-worker2'])).toEqual([{ value: 42 }]);
    expect(await rows(database.url, 'SELECT value FROM tier_probe WHERE key = $1', ['from-worker2'])).toEqual([{ value: 42 }]);
    await expect(rows(worker2!, 'SELECT count(*) FROM tier_probe')).rejects.toThrow('multi-task query about to be executed');
  });

  it('delegates a distributed function call to the worker holding its shard', async () => {
    await on(database.url, async (c) => {
      await c.query(`CREATE FUNCTION tier_probe_bump(k text, by int) RETURNS int LANGUAGE sql AS $$
        UPDATE tier_probe SET value = value + by WHERE key = k RETURNING value $$`);
      await c.query(`SELECT create_distributed_function('tier_probe_bump(text,int)', 'k', colocate_with := 'tier_probe')`);
    });
    const notices: string[] = [];
    const result = await on(database.url, async (c) => {
      c.on('notice', (notice) => notices.push(notice.message ?? ''));
      await c.query('SET client_min_messages = debug1');
      return (await c.query(`SELECT tier_probe_bump('k9', 100) AS value`)).rows;
    });
    expect(result).toEqual([{ value: 109 }]);
    expect(notices).toContain('pushing down the function call');
  });
});

/**
 * The helpers a test uses to take a worker down and bring it back. On a cluster of its own: the shared one serves
 * every other test file of the run, which may run at the same time on another jest worker.
 */
describe('worker stop, kill -9 and restart', () => {
  let cluster: CitusCluster;
  const database = 'restart_probe';
  beforeAll(async () => {
    cluster = await startCitusCluster();
    await createCitusDatabase(cluster, database);
    await on(nodeUrl(cluster, 'coordinator', database), async (c) => {
      await c.query('CREATE TABLE probe (key text PRIMARY KEY, value int NOT NULL)');
      await c.query(`SELECT create_distributed_table('probe', 'key')`);
      for (let i = 0; i < 40; i++) await c.query('INSERT INTO probe VALUES ($1, $2)', [`k${i}`, i]);
    });
  });
  afterAll(async () => {
    if (cluster) await stopCitusCluster(cluster);
  });

  /** A key of the probe table whose shard is on the given worker. */
  async function keyOn(worker: 'worker1' | 'worker2'): Promise<string> {
    const port = cluster.nodes.find((n) => n.name === worker)!.port;
    const found = await rows(
      nodeUrl(cluster, 'coordinator', database),
      `SELECT p.key FROM probe p
         JOIN pg_dist_placement pl ON pl.shardid = get_shard_id_for_distribution_column('probe', p.key)
         JOIN pg_dist_node n ON n.groupid = pl.groupid
        WHERE n.nodeport = $1 LIMIT 1`,
      [port],
    );
    return found[0]!.key;
  }

  const read = (key: string) => rows(nodeUrl(cluster, 'coordinator', database), 'SELECT value FROM probe WHERE key = $1', [key]);

  it('kills a worker with kill -9: its shards fail, the other worker\'s still answer, and it comes back', async () => {
    const [down, up] = [await keyOn('worker2'), await keyOn('worker1')];
    const pid = postmasterPid(cluster, 'worker2');
    expect(pid).toEqual(expect.any(Number));
    await killNode(cluster, 'worker2');
    expect(postmasterPid(cluster, 'worker2')).toBeNull();
    await expect(read(down)).rejects.toThrow(/connection|terminat|server closed/i);
    expect(await read(up)).toEqual([{ value: Number(up.slice(1)) }]);
    await startNode(cluster, 'worker2');
    expect(postmasterPid(cluster, 'worker2')).not.toEqual(pid);
    expect(await read(down)).toEqual([{ value: Number(down.slice(1)) }]);
  });

  it('stops a worker (pg_ctl -m immediate) and starts it again with its data', async () => {
    const key = await keyOn('worker1');
    await stopNode(cluster, 'worker1', 'immediate');
    await expect(read(key)).rejects.toThrow(/connection|terminat|server closed/i);
    await startNode(cluster, 'worker1');
    expect(await read(key)).toEqual([{ value: Number(key.slice(1)) }]);
  });
});
