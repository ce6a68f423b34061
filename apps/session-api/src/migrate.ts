import { loadConfig, revertLastMigration, runMigrations } from '#platform';
import { resolveDatabase } from './database/resolve-database.js';

/**
 * `npm run migrate` applies pending migrations; `npm run migrate -- --down` reverts the latest one. With `--json`
 * (how the service runs it at start, database/migrate-apart.ts) the answer is one JSON line: `{"applied":[…]}`.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await resolveDatabase(config, { log: () => undefined });
  try {
    if (process.argv.includes('--down')) {
      await revertLastMigration(database.url);
      process.stdout.write('reverted the latest migration\n');
    } else {
      const applied = await runMigrations(database.url);
      if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ applied })}\n`);
      else process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    }
  } finally {
    await database.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
