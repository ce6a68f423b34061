import { spawn } from 'node:child_process';
import pg from 'pg';
import { startTestCluster, stopTestCluster } from './test-postgres.mjs';
import { citusMissing, createCitusDatabase, freezeCitusTemplate, nodeUrl, startCitusCluster, stopCitusCluster } from './test-citus.mjs';

export const TEMPLATE_DB = 'chronicle_test_template';
export const CITUS_TEMPLATE_DB = 'chronicle_citus_template';

/** Which jest projects this run selected (none = all). */
function selectedProjects() {
  const index = process.argv.indexOf('--selectProjects');
  if (index < 0) return [];
  const names = [];
  for (const arg of process.argv.slice(index + 1)) {
    if (arg.startsWith('-')) break;
    names.push(arg);
  }
  return names;
}

/** `npm run migrate` (which builds dist/ first), or the built migrate.js alone when this setup has built it already. */
function migrate(databaseUrl, { build }) {
  const [command, args] = build ? ['npm', ['run', '--silent', 'migrate']] : [process.execPath, ['dist/apps/session-api/src/migrate.js']];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`migrations failed on ${new URL(databaseUrl).pathname.slice(1)}: ${output}`))));
  });
}

/**
 * The PostgreSQL tier: one throwaway PostgreSQL for the whole run (or TEST_DATABASE_URL), a template database
 * migrated once with the real migrations (`npm run migrate` against it), and every test file clones its own
 * database from it (test/support/database.ts).
 */
async function setUpPostgres() {
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const cluster = await startTestCluster();
    globalThis.__CHRONICLE_TEST_CLUSTER__ = cluster;
    adminUrl = cluster.url;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE_DB}`;
  await migrate(templateUrl.toString(), { build: true });
  process.env.CHRONICLE_TEST_ADMIN_URL = adminUrl;
  process.env.CHRONICLE_TEST_TEMPLATE_DB = TEMPLATE_DB;
}

/**
 * The Citus tier (jest project `citus`): a throwaway coordinator and two workers (test/support/test-citus.mjs),
 * and a template database on all three with the extension, the workers registered and the real migrations
 * applied through the coordinator, then frozen so every test file clones its own copy on each node. Answers
 * null when Citus is not installed here (the tier is skipped, or the run fails under CHRONICLE_REQUIRE_CITUS=1).
 */
async function startCitusTier() {
  const missing = citusMissing();
  if (missing) {
    if (process.env.CHRONICLE_REQUIRE_CITUS === '1') {
      throw new Error(`citus tier: ${missing}, and CHRONICLE_REQUIRE_CITUS=1 requires it; install it with bash ../shared/citus/install.sh`);
    }
    process.stdout.write(`\ncitus tier skipped: ${missing}; install it with bash ../shared/citus/install.sh\n`);
    process.env.CHRONICLE_TEST_CITUS_SKIPPED = missing;
    return null;
  }
  const cluster = await startCitusCluster();
  globalThis.__CHRONICLE_TEST_CITUS__ = cluster;
  await createCitusDatabase(cluster, CITUS_TEMPLATE_DB);
  return cluster;
}

async function migrateCitusTemplate(cluster, { build }) {
  await migrate(nodeUrl(cluster, 'coordinator', CITUS_TEMPLATE_DB), { build });
  await freezeCitusTemplate(cluster, CITUS_TEMPLATE_DB);
  process.env.CHRONICLE_TEST_CITUS_CLUSTER = JSON.stringify({ ...cluster, template: CITUS_TEMPLATE_DB });
}

export default async function globalSetup() {
  const projects = selectedProjects();
  const everything = projects.length === 0;
  const postgres = everything || projects.some((p) => p !== 'unit' && p !== 'citus');
  const citus = everything || projects.includes('citus');
  // The Citus cluster starts while the PostgreSQL tier builds and migrates; its template is migrated after that
  // build, with the built migrate.js (or with `npm run migrate` when the citus project runs alone).
  const settled = await Promise.allSettled([postgres ? setUpPostgres() : undefined, citus ? startCitusTier() : null]);
  const failed = settled.find((result) => result.status === 'rejected');
  try {
    if (failed) throw failed.reason;
    const cluster = settled[1].value;
    if (cluster) await migrateCitusTemplate(cluster, { build: !postgres });
  } catch (error) {
    // Jest runs no global teardown after a failed global setup: nothing started may outlive the run.
    const cluster = globalThis.__CHRONICLE_TEST_CITUS__;
    if (cluster) await stopCitusCluster(cluster).catch(() => undefined);
    const server = globalThis.__CHRONICLE_TEST_CLUSTER__;
    if (server) {
      try {
        stopTestCluster(server);
      } catch {
        // already down
      }
    }
    throw error;
  }
}
