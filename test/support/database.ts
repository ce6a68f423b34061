import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { citusClusterFromEnv, cloneCitusDatabase, dropCitusDatabase, nodeUrl } from './test-citus.mjs';

export interface TestDatabase {
  readonly url: string;
  /** Which server the database is on: the test PostgreSQL, or the Citus cluster (the jest project `citus`). */
  readonly engine: 'postgres' | 'citus';
  /** On Citus, the same database on worker1 and worker2 (every node takes queries); empty on PostgreSQL. */
  readonly workerUrls: readonly string[];
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file, cloned from the template the global setup made: on the test
 * PostgreSQL, or — in the jest project `citus` (its setup file sets CHRONICLE_TEST_ENGINE=citus) — on every node
 * of the Citus cluster, its `url` the coordinator's.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `t_${randomUUID().replaceAll('-', '')}`;
  if (process.env.CHRONICLE_TEST_ENGINE === 'citus') return createCitusTestDatabase(name);
  const adminUrl = process.env.CHRONICLE_TEST_ADMIN_URL;
  const template = process.env.CHRONICLE_TEST_TEMPLATE_DB;
  if (!adminUrl || !template) throw new Error('the jest global setup did not start a test PostgreSQL');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    engine: 'postgres',
    workerUrls: [],
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        // `pool.end()` resolves once it has asked each connection to end, not once the server has closed them;
        // FORCE at that moment terminates a backend still reading its Terminate, and the pool's idle client
        // raises that 57P01 as an unhandled 'error' in the test file (seen once in CI, head-reader.int.spec.ts).
        // So the drop waits for those connections to go, and forces only what is still there after 2 s.
        // The key store the app made beside it (`<name>_keys`), if it made one.
        await client.query(`DROP DATABASE IF EXISTS ${name}_keys WITH (FORCE)`);
        for (const deadline = Date.now() + 2_000; ; ) {
          try {
            await client.query(`DROP DATABASE IF EXISTS ${name}`);
            return;
          } catch (error) {
            // 55006: "database … is being accessed by other users".
            if ((error as { code?: string }).code !== '55006' || Date.now() > deadline) break;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * The Citus tier's database: the migrated template cloned on the coordinator and both workers (a fraction of the
 * time it takes to create the extension, register the workers and migrate from scratch: bench/README.md), each
 * copy set to refuse multi-shard queries (`citus.multi_task_query_log_level = 'error'`: per-session statements
 * must be single-shard; a cross-session query lifts it with SET LOCAL).
 */
async function createCitusTestDatabase(name: string): Promise<TestDatabase> {
  const cluster = citusClusterFromEnv();
  await cloneCitusDatabase(cluster, cluster.template, name, { 'citus.multi_task_query_log_level': 'error' });
  return {
    url: nodeUrl(cluster, 'coordinator', name),
    engine: 'citus',
    workerUrls: [nodeUrl(cluster, 'worker1', name), nodeUrl(cluster, 'worker2', name)],
    drop: () => dropCitusDatabase(cluster, name),
  };
}

export interface DatabaseFixture {
  readonly url: string;
  readonly pool: pg.Pool;
  readonly store: import('#event-store').EventStore;
}

/**
 * Registers beforeAll/afterAll for a test file that needs its own database, a pool and the event store on
 * it; the getters are valid inside tests.
 */
export function useTestDatabase(options: { poolSize?: number } = {}): DatabaseFixture {
  let database: TestDatabase | undefined;
  let pool: pg.Pool | undefined;
  let store: import('#event-store').EventStore | undefined;
  beforeAll(async () => {
    const { createSessionEventStore } = await import('#read-models');
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: options.poolSize ?? 6, pipeline: true });
    // The service's store with its inline read models, so audits of these sessions compare a summary row.
    store = await createSessionEventStore(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });
  const ready = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`the test database ${name} is used outside a test`);
    return value;
  };
  return {
    get url() {
      return ready(database, 'url').url;
    },
    get pool() {
      return ready(pool, 'pool');
    },
    get store() {
      return ready(store, 'store');
    },
  };
}
