import type { DataSource } from 'typeorm';
import { migrations } from '#migrations';

/** Any fixed key: migrations of several replicas starting at once run one after another. */
const MIGRATION_LOCK = 727_001;

async function dataSource(url: string): Promise<DataSource> {
  // Loaded when migrations run, not with the service: TypeORM is the migration runner only.
  const { DataSource } = await import('typeorm');
  return new DataSource({
    type: 'postgres',
    url,
    migrations,
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
    logging: false,
  });
}

/**
 * Applies every pending migration, under an advisory lock (TypeORM 1.x migrations take none). On a Citus worker
 * (a replica may connect to any node) nothing is applied: the schema is the coordinator's to change, and a
 * pending migration there is an error that says so.
 */
export async function runMigrations(url: string): Promise<string[]> {
  const source = await (await dataSource(url)).initialize();
  const runner = source.createQueryRunner();
  try {
    await runner.connect();
    if (await onCitusWorker(runner)) {
      if (await source.showMigrations()) {
        throw new Error('migrations are pending and this database is a Citus worker: start a replica on the coordinator first (it applies them)');
      }
      return [];
    }
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const applied = await source.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
    await source.destroy();
  }
}

async function onCitusWorker(runner: { query(sql: string): Promise<Record<string, boolean>[]> }): Promise<boolean> {
  const [{ citus }] = await runner.query(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`);
  if (!citus) return false;
  const [{ coordinator }] = await runner.query(`SELECT citus_is_coordinator() AS coordinator`);
  return !coordinator;
}

/** Reverts the latest migration (used by `npm run migrate -- --down` and the migration tests). */
export async function revertLastMigration(url: string): Promise<void> {
  const source = await (await dataSource(url)).initialize();
  try {
    await source.undoLastMigration({ transaction: 'each' });
  } finally {
    await source.destroy();
  }
}

export const knownMigrationNames: readonly string[] = migrations.map((m) => m.name);
