import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { KeyStoreError, keyringFromSettings, type PostgresEventStore, type SessionKeyring } from '#event-store';
import { loadConfig, redactUrl, runMigrations, startEmbeddedDatabase } from '#platform';
import { createSessionEventStore, SessionViews, SnapshotStore } from '#read-models';
import { SessionWriter } from '#session-commands';
import { CliError, EXIT, errorMessage, type CliIo } from './cli-io.js';

/** What every command gets: the same pool, event store and views the service builds. */
export interface CliDatabase {
  readonly url: string;
  readonly embedded: boolean;
  readonly pool: pg.Pool;
  /** The service's store: content sealed on append, opened on read. */
  readonly store: PostgresEventStore;
  /** The same store without sealing: events as stored (an import writes the file's stored forms as they are). */
  readonly storedForms: PostgresEventStore;
  /** The session data keys (null: CHRONICLE_ENCRYPTION=off). */
  readonly keyring: SessionKeyring | null;
  readonly snapshots: SnapshotStore;
  readonly views: SessionViews;
  readonly writer: SessionWriter;
  close(): Promise<void>;
}

const LOCKED = /is still running \(pid (\d+)\)/;

/**
 * Same configuration as the service: `DATABASE_URL`, or the embedded PostgreSQL kept in `CHRONICLE_DATA_DIR`
 * (started for the command and stopped after it; only possible while the service is stopped). Pending
 * migrations are applied, as `npm start` does. Every failure here is a connection error (exit 2).
 */
export async function openDatabase(io: CliIo): Promise<CliDatabase> {
  let config;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    throw new CliError(EXIT.usage, `chronicle: ${errorMessage(error)}`);
  }
  let url = config.databaseUrl;
  let stopEmbedded = async (): Promise<void> => undefined;
  let discardCreated: (() => void) | undefined;
  if (!url) {
    const dataDir = resolve(io.cwd ?? process.cwd(), config.dataDir);
    const log: string[] = [];
    discardCreated = createdBy(dataDir);
    try {
      const embedded = await startEmbeddedDatabase({ dataDir, log: (line) => log.push(line) });
      url = embedded.url;
      stopEmbedded = () => embedded.stop();
    } catch (error) {
      discardCreated?.();
      const locked = LOCKED.exec(errorMessage(error));
      if (locked) {
        throw new CliError(
          EXIT.usage,
          `chronicle: the embedded database in ${dataDir} is in use by a running Chronicle service (postgres pid ${locked[1]}).\n` +
            `Stop the service first, or set DATABASE_URL to a PostgreSQL server the service uses.`,
        );
      }
      const detail = error === undefined ? log.slice(-3).join('\n') : errorMessage(error);
      throw new CliError(EXIT.usage, `chronicle: could not start the embedded database in ${dataDir}: ${detail || 'unknown error'}`);
    }
  }
  const pool = new pg.Pool({ connectionString: url, max: 4, pipeline: true });
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
    await runMigrations(url);
  } catch (error) {
    await pool.end().catch(() => undefined);
    await stopEmbedded().catch(() => undefined);
    discardCreated?.();
    throw new CliError(EXIT.usage, `chronicle: cannot use the database at ${redactUrl(url)}: ${errorMessage(error)}`);
  }
  let keyring: SessionKeyring | null;
  try {
    // No bound on a key store statement's answer here: the CLI's work on a large key table (rotate-keys, stats)
    // may take longer than the service's bound allows, and its operator sees a hang.
    keyring = await keyringFromSettings({ ...config, dbQueryTimeoutMs: 0 }, url);
  } catch (error) {
    await pool.end().catch(() => undefined);
    await stopEmbedded().catch(() => undefined);
    // A KeyStoreError names the key store and where its URL came from.
    throw new CliError(EXIT.usage, error instanceof KeyStoreError ? `chronicle: ${error.message}` : `chronicle: cannot open the key store: ${errorMessage(error)}`);
  }
  // The service's store: an import or a decision the CLI appends reaches running replicas' live feeds too.
  const storedForms = await createSessionEventStore(pool);
  const store = await createSessionEventStore(pool, { keyring });
  const snapshots = new SnapshotStore(pool, keyring);
  const views = new SessionViews(store, snapshots, { snapshotEvery: config.snapshotEvery, cacheBytes: 16 * 1024 * 1024 });
  const writer = new SessionWriter(store, views);
  return {
    url,
    embedded: !config.databaseUrl,
    pool,
    store,
    storedForms,
    keyring,
    snapshots,
    views,
    writer,
    async close() {
      // A cluster this command created and left without one event (a refused import, a dry run, a typo in a
      // path) is not kept: the next command or the service starts from nothing, as before it.
      const discard = discardCreated && (await holdsNoEvent(pool)) ? discardCreated : undefined;
      await pool.end().catch(() => undefined);
      await keyring?.close().catch(() => undefined);
      await stopEmbedded();
      discard?.();
    },
  };
}

const holdsNoEvent = (pool: pg.Pool): Promise<boolean> =>
  pool.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM events) AS empty').then(
    (result) => result.rows[0].empty,
    () => false,
  );

/**
 * What starting the embedded cluster in `dataDir` is about to create there: the answer removes exactly that
 * (the cluster folder, its password, the master key, the data folder when it did not exist or is left empty), never what was
 * there before. Nothing to remove when a cluster already exists.
 */
function createdBy(dataDir: string): (() => void) | undefined {
  if (existsSync(join(dataDir, 'pg', 'PG_VERSION'))) return undefined;
  // The master key made for this cluster's key store goes with it (the key store is in the cluster).
  const created = ['pg', 'pg-password', 'master-key'].map((name) => join(dataDir, name)).filter((path) => !existsSync(path));
  const folderExisted = existsSync(dataDir);
  return () => {
    for (const path of created) rmSync(path, { recursive: true, force: true });
    if (!folderExisted && existsSync(dataDir) && readdirSync(dataDir).length === 0) rmSync(dataDir, { recursive: true, force: true });
  };
}
