import pg from 'pg';
import { runMigrations } from '#platform';
import { startTestCluster, type TestCluster } from '../../support/test-postgres.mjs';

/**
 * A PostgreSQL cluster of the test file's own (stopping it, or cutting it off, never disturbs the files that share
 * the global one) with one migrated database: the cluster and the database's URL.
 */
export async function startOwnDatabase(database: string): Promise<{ cluster: TestCluster; url: string }> {
  const cluster = await startTestCluster();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = cluster.url.replace(/\/postgres$/, `/${database}`);
  await runMigrations(url);
  return { cluster, url };
}
