// Plain JS: jest loads global setup outside its ESM transform.
import { execFile } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './test-postgres.mjs';

/**
 * A throwaway Citus cluster for the test run: a coordinator and two workers, three PostgreSQL 15 servers from
 * Debian's binaries with the Citus extension preloaded, each initdb'd in a temp dir and listening on a random
 * free port of 127.0.0.1, with the test PostgreSQL's speed settings (fsync, synchronous_commit and
 * full_page_writes off). As root the servers run as the unprivileged `postgres` OS user.
 *
 * The servers hold no Citus database of their own: the global setup makes a migrated template database on all
 * three (`createCitusDatabase` + the migrations + `freezeCitusTemplate`) and every test file clones its own
 * from it on each node (`cloneCitusDatabase`).
 */
export const CITUS_BIN = '/usr/lib/postgresql/15/bin';
export const CITUS_LIBRARY = '/usr/lib/postgresql/15/lib/citus.so';
export const CITUS_CONTROL = '/usr/share/postgresql/15/extension/citus.control';
export const NODE_NAMES = /** @type {const} */ (['coordinator', 'worker1', 'worker2']);
const HOST = '127.0.0.1';

const execFileAsync = promisify(execFile);

/** Why no Citus cluster can start here (null when it can): the files install.sh writes, and the server binaries. */
export function citusMissing() {
  if (!existsSync(join(CITUS_BIN, 'postgres'))) return `PostgreSQL 15 is not installed (${CITUS_BIN})`;
  const absent = [CITUS_LIBRARY, CITUS_CONTROL].filter((file) => !existsSync(file));
  if (absent.length > 0) return `Citus is not installed (no ${absent.join(', ')})`;
  return null;
}

async function run(cluster, tool, args) {
  const command = join(CITUS_BIN, tool);
  const [file, argv] = cluster.asUser ? ['runuser', ['-u', cluster.asUser, '--', command, ...args]] : [command, args];
  try {
    return await execFileAsync(file, argv, { encoding: 'utf8' });
  } catch (error) {
    throw new Error(`${tool} ${args.join(' ')} failed (${error.code}): ${error.stderr || error.stdout || error.message}`, { cause: error });
  }
}

function node(cluster, name) {
  const found = cluster.nodes.find((n) => n.name === name);
  if (!found) throw new Error(`no Citus node ${name} (${cluster.nodes.map((n) => n.name).join(', ')})`);
  return found;
}

/** The URL of a database on one node (`postgres` by default: the maintenance database, without Citus). */
export function nodeUrl(cluster, name, database = 'postgres') {
  return `postgres://postgres@${HOST}:${node(cluster, name).port}/${database}`;
}

/**
 * Where the three data directories go: /dev/shm (tmpfs) where there is one, else the OS temp dir. An initdb and
 * the copies of its directory are much quicker on tmpfs than on a disk other work shares, and every
 * CREATE DATABASE of a test file writes there too (bench/README.md).
 */
function dataRoot() {
  try {
    if (statSync('/dev/shm').isDirectory()) return '/dev/shm';
  } catch {
    // no tmpfs: the OS temp dir
  }
  return tmpdir();
}

/** The server settings every node runs with (written to its postgresql.conf, so a restart keeps them). */
function settings(n) {
  return [
    '',
    '# --- test/support/test-citus.mjs ---',
    `port = ${n.port}`,
    `listen_addresses = '${HOST}'`,
    `unix_socket_directories = '${n.dataDir}'`,
    "shared_preload_libraries = 'citus'",
    'max_prepared_transactions = 200',
    'max_connections = 300',
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    // Every database with the citus extension runs a maintenance daemon (2PC recovery, distributed deadlock
    // detection) as a background worker, in a shared table sized by this setting: with the default 8 the 8th
    // database on a node got "WARNING: could not start maintenance background worker" and ran without one.
    // A test file may hold several databases at once (the CLI's export/import tests: three), plus the template.
    'max_worker_processes = 64',
    '',
  ].join('\n');
}

/**
 * initdb's one data directory, copied for the other two nodes (quicker than three initdbs at once on two cores:
 * bench/README.md), then the three servers started at once. Answers the cluster, `startMs` how long it took.
 */
export async function startCitusCluster() {
  const started = performance.now();
  const asUser = process.getuid?.() === 0 ? 'postgres' : null;
  const baseDir = mkdtempSync(join(dataRoot(), 'chronicle-test-citus-'));
  if (asUser) {
    const { stdout: uid } = await execFileAsync('id', ['-u', asUser], { encoding: 'utf8' });
    const { stdout: gid } = await execFileAsync('id', ['-g', asUser], { encoding: 'utf8' });
    chownSync(baseDir, Number(uid.trim()), Number(gid.trim()));
  }
  chmodSync(baseDir, 0o700);
  const ports = new Set();
  while (ports.size < NODE_NAMES.length) ports.add(await freePort());
  const portList = [...ports];
  const nodes = NODE_NAMES.map((name, i) => ({ name, port: portList[i], dataDir: join(baseDir, name) }));
  const cluster = { asUser, baseDir, nodes, startMs: 0 };
  try {
    const [first, ...rest] = nodes;
    await run(cluster, 'initdb', ['-D', first.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    await Promise.all(rest.map((n) => (cluster.asUser ? execFileAsync('runuser', ['-u', cluster.asUser, '--', 'cp', '-a', first.dataDir, n.dataDir]) : execFileAsync('cp', ['-a', first.dataDir, n.dataDir]))));
    for (const n of nodes) appendFileSync(join(n.dataDir, 'postgresql.conf'), settings(n));
    await Promise.all(nodes.map((n) => startNodeServer(cluster, n)));
  } catch (error) {
    await stopCitusCluster(cluster).catch(() => undefined);
    throw error;
  }
  cluster.startMs = Math.round(performance.now() - started);
  return cluster;
}

function startNodeServer(cluster, n) {
  return run(cluster, 'pg_ctl', ['-D', n.dataDir, '-l', join(n.dataDir, 'server.log'), '-w', '-t', '60', 'start']);
}

/** The postmaster's pid of a node (the first line of postmaster.pid), or null when it is not running. */
export function postmasterPid(cluster, name) {
  const file = join(node(cluster, name).dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
  } catch {
    return null;
  }
  // A killed postmaster no one has reaped yet still answers signal 0: a zombie is not running.
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')) ? null : pid;
  } catch {
    return null;
  }
}

/** Stops a node's server, keeping its data: `fast` cuts its sessions, `immediate` is a crash without a shutdown checkpoint. */
export async function stopNode(cluster, name, mode = 'fast') {
  await run(cluster, 'pg_ctl', ['-D', node(cluster, name).dataDir, '-m', mode, '-w', 'stop']);
}

/**
 * `kill -9` of a node's postmaster, then waits until it is gone. Its backends notice and exit on their own
 * within moments; `startNode` waits for them.
 */
export async function killNode(cluster, name) {
  const pid = postmasterPid(cluster, name);
  if (pid === null) throw new Error(`Citus node ${name} is not running`);
  process.kill(pid, 'SIGKILL');
  for (const deadline = Date.now() + 10_000; postmasterPid(cluster, name) !== null; ) {
    if (Date.now() > deadline) throw new Error(`Citus node ${name} (pid ${pid}) survived SIGKILL for 10 s`);
    await sleep(20);
  }
}

/**
 * Starts a stopped or killed node again on its port and data. After a `kill -9` the dead postmaster's backends
 * may still hold its shared memory for a moment ("pre-existing shared memory block … is still in use"): the
 * start is retried for up to 30 s.
 */
export async function startNode(cluster, name) {
  const n = node(cluster, name);
  for (const deadline = Date.now() + 30_000; ; ) {
    try {
      await startNodeServer(cluster, n);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(200);
    }
  }
}

/** Stops every node at once (`immediate`: nothing of a throwaway cluster needs a checkpoint) and deletes the data. */
export async function stopCitusCluster(cluster) {
  try {
    await Promise.all(
      cluster.nodes.map((n) =>
        existsSync(join(n.dataDir, 'postmaster.pid'))
          ? run(cluster, 'pg_ctl', ['-D', n.dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined)
          : undefined,
      ),
    );
  } finally {
    rmSync(cluster.baseDir, { recursive: true, force: true });
  }
}

/** The cluster as the global setup hands it to the test files (an env var): JSON of the object above. */
export function citusClusterFromEnv(env = process.env) {
  const json = env.CHRONICLE_TEST_CITUS_CLUSTER;
  if (!json) throw new Error('the jest global setup did not start a Citus cluster (run the citus project: npm run test:citus)');
  return JSON.parse(json);
}

async function onNode(cluster, name, database, work) {
  const client = new pg.Client({ connectionString: nodeUrl(cluster, name, database) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const quote = (identifier) => `"${identifier.replaceAll('"', '""')}"`;

/**
 * A new Citus database from scratch: CREATE DATABASE on each node (Citus does not propagate it), CREATE
 * EXTENSION citus on each, then on the coordinator its own host and both workers registered (which syncs
 * the metadata to the workers). Empty: the caller runs the migrations.
 */
export async function createCitusDatabase(cluster, database) {
  await Promise.all(cluster.nodes.map((n) => onNode(cluster, n.name, 'postgres', (c) => c.query(`CREATE DATABASE ${quote(database)}`))));
  await Promise.all(cluster.nodes.map((n) => onNode(cluster, n.name, database, (c) => c.query('CREATE EXTENSION citus'))));
  await onNode(cluster, 'coordinator', database, async (c) => {
    await c.query('SELECT citus_set_coordinator_host($1, $2)', [HOST, node(cluster, 'coordinator').port]);
    for (const name of ['worker1', 'worker2']) await c.query('SELECT citus_add_node($1, $2)', [HOST, node(cluster, name).port]);
  });
}

/**
 * No new connection to `database` on any node. Every node's maintenance daemon keeps connections to the same
 * database on the other nodes: closed everywhere first, the daemons and sessions ended next cannot come back.
 */
async function refuseConnections(cluster, database) {
  await Promise.all(cluster.nodes.map((n) => onNode(cluster, n.name, 'postgres', (c) => c.query(`ALTER DATABASE ${quote(database)} WITH ALLOW_CONNECTIONS false`))));
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
        await c.query(`CREATE DATABASE ${quote(database)} TEMPLATE ${quote(template)}`);
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
          for (const [name, value] of entries) await c.query(`ALTER DATABASE ${quote(database)} SET ${name} = ${pg.escapeLiteral(String(value))}`);
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
      await onNode(cluster, n.name, 'postgres', (c) => c.query(`DROP DATABASE IF EXISTS ${quote(database)} WITH (FORCE)`));
    }),
  );
}
