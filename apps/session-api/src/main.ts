import 'reflect-metadata';
import { createLogger, loadConfig, resolveApiKeys, runMigrations } from '#platform';
import { createApp } from './app.factory.js';
import { resolveDatabase } from './database/resolve-database.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const database = await resolveDatabase(config, (message) => log.debug({ embedded: true }, message));
  log.info({ embedded: database.embedded, dataDir: database.embedded ? config.dataDir : undefined }, 'database ready');
  const applied = await runMigrations(database.url);
  if (applied.length > 0) log.info({ applied }, 'migrations applied');
  const keys = resolveApiKeys(config.apiKeys, config.dataDir);
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
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await app.close();
    await database.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  await app.listen(config.port, config.host);
  log.info({ port: config.port }, `Chronicle listening on http://localhost:${config.port}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`chronicle failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
