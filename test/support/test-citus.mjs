// Plain JS: jest loads global setup outside its ESM transform.
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { onNode, quoteIdentifier, startCitusCluster as startCluster } from './citus-cluster.js';
import { freePort } from './test-postgres.mjs';

// Everything of the cluster but its start (startCitusCluster below: the tests' settings) is citus-cluster.js's.
export * from './citus-cluster.js';

/**
 * A throwaway Citus cluster for the test run (citus-cluster.js: a coordinator and two workers on free ports of
 * 127.0.0.1), with the test PostgreSQL's speed settings (fsync, synchronous_commit and full_page_writes off).
 *
 * The servers hold no Citus database of their own: the global setup makes a migrated template database on all
 * three (`createCitusDatabase` + the migrations + `freezeCitusTemplate`) and every test file clones its own
 * from it on each node (`cloneCitusDatabase`).
 */

/**
 * Where the three data directories go: /dev/shm (tmpfs) where there is one, else the OS temp dir. An initdb is
 * much quicker on tmpfs than on a disk other work shares, and every CREATE DATABASE of a test file writes there
 * too (bench/README.md).
 */
function dataRoot() {
  try {
    if (statSync('/dev/shm').isDirectory()) return '/dev/shm';
  } catch {
    // no tmpfs: the OS temp dir
  }
  return tmpdir();
}

/** The server settings of the test nodes, beyond what every Citus node of citus-cluster.js runs with. */
const SETTINGS = {
  max_connections: 300,
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  // Every database with the citus extension runs a maintenance daemon (2PC recovery, distributed deadlock
  // detection) as a background worker, in a shared table sized by this setting: with the default 8 the 8th
  // database on a node got "WARNING: could not start maintenance background worker" and ran without one.
  // A test file may hold several databases at once (the CLI's export/import tests: three), plus the template.
  max_worker_processes: 64,
};

/** The test cluster, started (three initdbs: citus-cluster.js says why not copies; bench/README.md what each costs). */
export function startCitusCluster() {
  return startCluster({ freePort, dataRoot: dataRoot(), prefix: 'chronicle-test-citus-', label: 'test/support/test-citus.mjs', settings: SETTINGS });
}

/** The cluster as the global setup hands it to the test files (an env var): JSON of the object above. */
export function citusClusterFromEnv(env = process.env) {
  const json = env.CHRONICLE_TEST_CITUS_CLUSTER;
  if (!json) throw new Error('the jest global setup did not start a Citus cluster (run the citus project: npm run test:citus)');
  return JSON.parse(json);
}


/**
 * No new connection to `database` on any node. Every node's maintenance daemon keeps connections to the same
 * database on the other nodes: closed everywhere first, the daemons and sessions ended next cannot come back.
 */
async function refuseConnections(cluster, database) {
  await Promise.all(cluster.nodes.map((n) => onNode(cluster, n.name, 'postgres', (c) => c.query(`ALTER DATABASE ${quoteIdentifier(database)} WITH ALLOW_CONNECTIONS false`))));
}

/** Terminates every backend of `database` on one node until none is left (a backend that stays 10 s fails the call). */
async function endBackends(cluster, name, database) {
  await onNode(cluster, name, 'postgres', async (c) => {
    for (const deadline = Date.now() + 10_000; ; ) {
      const { rows } = await c.query(
        `SELECT pid, backend_type, application_name, pg_terminate_backend(pid) AS terminated
           FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [database],
      );
      if (rows.length === 0) return;
      if (Date.now() > deadline) {
        const left = rows.map((r) => `${r.pid} ${r.backend_type} ${r.application_name}`).join('; ');
        throw new Error(`backends of ${database} on ${name} would not end: ${left}`);
      }
      await sleep(20);
    }
  });
}

/**
 * Makes a database cloneable on every node: no new connections, then every backend in it terminated — Citus's
 * maintenance daemon of that database included, which otherwise stays connected and makes `CREATE DATABASE …
 * TEMPLATE` wait 5 s and fail ("source database … is being accessed by other users"). A daemon ends on SIGTERM
 * and is not restarted; none starts again while the database takes no connections.
 */
export async function freezeCitusTemplate(cluster, database) {
  await refuseConnections(cluster, database);
  await Promise.all(cluster.nodes.map((n) => endBackends(cluster, n.name, database)));
}

/** One node's `CREATE DATABASE … TEMPLATE`, retried while a backend of the template is still on its way out. */
async function cloneOnNode(cluster, name, template, database) {
  await onNode(cluster, name, 'postgres', async (c) => {
    for (const deadline = Date.now() + 10_000; ; ) {
      try {
        await c.query(`CREATE DATABASE ${quoteIdentifier(database)} TEMPLATE ${quoteIdentifier(template)}`);
        return;
      } catch (error) {
        // 55006: "source database … is being accessed by other users".
        if (error.code !== '55006' || Date.now() > deadline) throw error;
        await sleep(20);
      }
    }
  });
}

/**
 * A database on every node cloned from the frozen template: the same schema, shards and Citus metadata (node
 * ids, ports, shard placements) on each, so the three copies form a working cluster at once. `settings` are
 * `ALTER DATABASE … SET` on every node (the sessions of every node, the coordinator's connections into the
 * workers included, start with them).
 */
export async function cloneCitusDatabase(cluster, template, database, settings = {}) {
  await Promise.all(cluster.nodes.map((n) => cloneOnNode(cluster, n.name, template, database)));
  const entries = Object.entries(settings);
  if (entries.length > 0) {
    await Promise.all(
      cluster.nodes.map((n) =>
        onNode(cluster, n.name, 'postgres', async (c) => {
          for (const [name, value] of entries) await c.query(`ALTER DATABASE ${quoteIdentifier(database)} SET ${name} = ${pg.escapeLiteral(String(value))}`);
        }),
      ),
    );
  }
}

/**
 * Drops a database on every node. Each node's maintenance daemon keeps connections to the same database on the
 * other nodes (4 backends per node: its daemon and one `citus_internal gpid=…` connection from each node's
 * daemon), so a plain DROP DATABASE waits 5 s and fails ("database … is being accessed by other users"); and
 * three DROP … WITH (FORCE) at once failed the same way now and then: a daemon, which only notes a SIGTERM and
 * leaves at its next loop, sat in a connection to another node's copy that was blocked behind that node's DROP.
 * So: prepared transactions a crashed worker left behind are rolled back (a drop refuses them); no node takes new
 * connections; like the PostgreSQL tier's drop the test's own closing connections get up to 2 s; every backend
 * left is terminated; then the drops, which find the database idle.
 */
export async function dropCitusDatabase(cluster, database) {
  // The key store an app made beside it on the coordinator (`<database>_keys`, a plain database), if any.
  await onNode(cluster, 'coordinator', 'postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(`${database}_keys`)} WITH (FORCE)`));
  await Promise.all(
    cluster.nodes.map((n) =>
      onNode(cluster, n.name, 'postgres', async (c) => {
        const prepared = await c.query('SELECT gid FROM pg_prepared_xacts WHERE database = $1', [database]);
        if (prepared.rows.length === 0) return;
        await onNode(cluster, n.name, database, async (inside) => {
          for (const { gid } of prepared.rows) await inside.query(`ROLLBACK PREPARED ${pg.escapeLiteral(gid)}`).catch(() => undefined);
        });
      }),
    ),
  );
  await refuseConnections(cluster, database);
  await Promise.all(
    cluster.nodes.map(async (n) => {
      await onNode(cluster, n.name, 'postgres', async (c) => {
        for (const deadline = Date.now() + 2_000; Date.now() < deadline; ) {
          const { rows } = await c.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = $1 AND backend_type = 'client backend' AND application_name NOT LIKE 'citus%'`,
            [database],
          );
          if (rows[0].n === 0) break;
          await sleep(50);
        }
      });
      await endBackends(cluster, n.name, database);
      await onNode(cluster, n.name, 'postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(database)} WITH (FORCE)`));
    }),
  );
}
