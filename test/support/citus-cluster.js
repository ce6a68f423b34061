// Plain JS (ESM): jest's global setup loads it outside the transform (through test-citus.mjs), and the bench
// runs it compiled by swc (package.json's build:server lists it), so it imports nothing but node and pg.
import { execFile, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * A local Citus cluster: a coordinator and two workers, three PostgreSQL 15 servers from Debian's binaries with
 * the Citus extension preloaded, each initdb'd in a temp dir and listening on a free port of 127.0.0.1. As root
 * the servers run as the unprivileged `postgres` OS user. What the servers are for decides the rest: the tests
 * (test-citus.mjs: tmpfs, fsync off) and the bench (bench/citus.bench.ts: the bench PostgreSQL's durable
 * settings, on disk) pass their own settings and data root.
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

const command = (cluster, tool, args) => {
  const path = join(CITUS_BIN, tool);
  return cluster.asUser ? ['runuser', ['-u', cluster.asUser, '--', path, ...args]] : [path, args];
};

async function run(cluster, tool, args) {
  const [file, argv] = command(cluster, tool, args);
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
 * The server settings every node runs with (written to its postgresql.conf, so a restart keeps them): its
 * address, Citus preloaded, prepared transactions for multi-shard commits, then the caller's `settings`
 * (`name = value` as postgresql.conf reads it; a later line wins, so they may override these).
 */
function configuration(n, label, settings) {
  return [
    '',
    `# --- ${label} ---`,
    `port = ${n.port}`,
    `listen_addresses = '${HOST}'`,
    `unix_socket_directories = '${n.dataDir}'`,
    "shared_preload_libraries = 'citus'",
    'max_prepared_transactions = 200',
    ...Object.entries(settings).map(([name, value]) => `${name} = ${value}`),
    '',
  ].join('\n');
}

/**
 * Three initdbs at once, then the three servers started at once. Answers the cluster, `startMs` how long it took.
 * Each node is initdb'd on its own, as the nodes of a real cluster are, never copied from another: a copy keeps
 * the original's system identifier (pg_control_system()), so a cluster of copies is one no user runs, and
 * anything keyed by that identifier would see one node where there are three.
 *
 * Options: `freePort` (the caller's: #platform's in the bench, test-postgres.mjs's plain-JS copy in the tests),
 * `dataRoot` (where the cluster's temp dir goes), `prefix` (its name), `label` (the comment heading the
 * settings in postgresql.conf), `settings` (server settings beyond the cluster's own, see `configuration`).
 */
export async function startCitusCluster({ freePort, dataRoot, prefix, label, settings }) {
  const started = performance.now();
  const asUser = process.getuid?.() === 0 ? 'postgres' : null;
  const baseDir = mkdtempSync(join(dataRoot, prefix));
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
    await Promise.all(nodes.map((n) => run(cluster, 'initdb', ['-D', n.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'])));
    for (const n of nodes) appendFileSync(join(n.dataDir, 'postgresql.conf'), configuration(n, label, settings));
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

const running = (n) => existsSync(join(n.dataDir, 'postmaster.pid'));

/** Stops every node at once (`immediate`: nothing of a throwaway cluster needs a checkpoint) and deletes the data. */
export async function stopCitusCluster(cluster) {
  try {
    await Promise.all(cluster.nodes.map((n) => (running(n) ? run(cluster, 'pg_ctl', ['-D', n.dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined) : undefined)));
  } finally {
    rmSync(cluster.baseDir, { recursive: true, force: true });
  }
}

/** `stopCitusCluster`, synchronously: for an exit or signal handler, which cannot wait for a promise. */
export function stopCitusClusterNow(cluster) {
  try {
    for (const n of cluster.nodes) if (running(n)) spawnSync(...command(cluster, 'pg_ctl', ['-D', n.dataDir, '-m', 'immediate', '-w', 'stop']));
  } finally {
    rmSync(cluster.baseDir, { recursive: true, force: true });
  }
}

/** Runs `work` on a connection of its own to `database` on one node. */
export async function onNode(cluster, name, database, work) {
  const client = new pg.Client({ connectionString: nodeUrl(cluster, name, database) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** An SQL identifier, quoted. */
export const quoteIdentifier = (identifier) => `"${identifier.replaceAll('"', '""')}"`;

/**
 * A new Citus database from scratch: CREATE DATABASE on each node (Citus does not propagate it), CREATE
 * EXTENSION citus on each, then on the coordinator its own host and both workers registered (which syncs
 * the metadata to the workers). Empty: the caller runs the migrations.
 */
export async function createCitusDatabase(cluster, database) {
  await Promise.all(cluster.nodes.map((n) => onNode(cluster, n.name, 'postgres', (c) => c.query(`CREATE DATABASE ${quoteIdentifier(database)}`))));
  await Promise.all(cluster.nodes.map((n) => onNode(cluster, n.name, database, (c) => c.query('CREATE EXTENSION citus'))));
  await onNode(cluster, 'coordinator', database, async (c) => {
    await c.query('SELECT citus_set_coordinator_host($1, $2)', [HOST, node(cluster, 'coordinator').port]);
    for (const name of ['worker1', 'worker2']) await c.query('SELECT citus_add_node($1, $2)', [HOST, node(cluster, name).port]);
  });
}
