import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { toSessionStreamId } from '#domain';
import { PostgresEventStore } from '#event-store';
import { runMigrations } from '#platform';
import { createCitusDatabase, nodeUrl, startCitusCluster, startNode, stopCitusCluster, stopNode, type CitusCluster } from '../support/test-citus.mjs';
import { freePort } from '../support/test-postgres.mjs';
import { onNode, sessionsOnNode } from './support/citus-streams.js';

/**
 * A worker that fails over to another address (here: stopped, started on another port, and `citus_update_node`
 * told so, as a failover does): the routed append, which sends each node's appends to the node itself, looks the
 * node's address up again once its connection to the old one fails, instead of trying the old one for every batch
 * until the process restarts. On a cluster of its own: moving a node of the shared one would fail the other files.
 */
let cluster: CitusCluster;
let pool: pg.Pool;
let store: PostgresEventStore;
let url: string;
const DB = 'node_address';

beforeAll(async () => {
  cluster = await startCitusCluster();
  await createCitusDatabase(cluster, DB);
  url = nodeUrl(cluster, 'coordinator', DB);
  await runMigrations(url);
  pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 5000 });
  pool.on('error', () => undefined);
  store = new PostgresEventStore(pool, { engine: 'citus' });
}, 120_000);
afterAll(async () => {
  // Ends the pool too.
  await store?.close();
  if (cluster) await stopCitusCluster(cluster);
});

/** The port of the pool the store's router holds for a node group: where its routed appends go. */
const routedPort = (group: number): number | undefined => {
  const pools = (store as unknown as { router: { pools: Map<number, pg.Pool> } }).router.pools;
  const options = pools.get(group)?.options;
  return options?.connectionString ? Number(new URL(options.connectionString).port) : options?.port;
};

/** Stops worker 1, starts it on a new port and tells the cluster (`citus_update_node`); answers the new port. */
async function moveWorker(worker: { port: number; dataDir: string }, from: number): Promise<number> {
  const to = await freePort();
  await stopNode(cluster, 'worker1');
  appendFileSync(join(worker.dataDir, 'postgresql.conf'), `\nport = ${to}\n`);
  worker.port = to;
  await startNode(cluster, 'worker1');
  await onNode(url, (c) => c.query(`SELECT citus_update_node(nodeid, '127.0.0.1', $1) FROM pg_dist_node WHERE nodeport = $2`, [to, from]));
  return to;
}

describe('a worker moved to another address', () => {
  it('sends its appends, and the log reader its reads, to the new address once the old one fails them', async () => {
    const worker = cluster.nodes.find((n) => n.name === 'worker1') as { name: string; port: number; dataDir: string };
    const oldPort = worker.port;
    const [sessionId] = await sessionsOnNode(url, oldPort, 'moved', 1);
    const streamId = toSessionStreamId(sessionId);
    const group = await onNode(url, async (c) => Number((await c.query(`SELECT groupid FROM pg_dist_node WHERE nodeport = $1`, [oldPort])).rows[0].groupid));
    const event = (n: number) => ({ type: 'Noted', data: { n } });
    await store.append(streamId, [event(1)], { expectedVersion: 0 });
    expect(routedPort(group)).toBe(oldPort);

    // The failover: the node comes back at another address, and the cluster's metadata says so.
    const newPort = await moveWorker(worker, oldPort);

    // The first append after it finds the old address gone, and commits through the coordinator.
    await store.append(streamId, [event(2)], { expectedVersion: 1 });
    // The next goes to the node at its new address.
    await store.append(streamId, [event(3)], { expectedVersion: 2 });
    expect(routedPort(group)).toBe(newPort);
    expect((await store.readStream(streamId)).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);

    // Moved again, with no append to find out: the reader of the log (which reads each node on its own pool)
    // finds the old address gone and looks it up again too, at the latest on its next read.
    const thirdPort = await moveWorker(worker, newPort);
    const read = await store.readAll({ limit: 100 }).catch(() => store.readAll({ limit: 100 }));
    expect(read.events.filter((e) => e.streamId === streamId).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(routedPort(group)).toBe(thirdPort);
  }, 120_000);
});
