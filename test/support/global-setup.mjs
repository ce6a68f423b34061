import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { startTestCluster } from './test-postgres.mjs';

export const TEMPLATE_DB = 'chronicle_test_template';

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

/**
 * Starts one throwaway PostgreSQL for the whole run (or uses TEST_DATABASE_URL), migrates a template
 * database once with the real migrations (`npm run migrate` against it), and lets every test file
 * clone its own database from it (test/support/database.ts).
 */
export default async function globalSetup() {
  const projects = selectedProjects();
  if (projects.length > 0 && projects.every((p) => p === 'unit')) return;
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
  const migrate = spawnSync('npm', ['run', '--silent', 'migrate'], {
    env: { ...process.env, DATABASE_URL: templateUrl.toString() },
    encoding: 'utf8',
  });
  if (migrate.status !== 0) throw new Error(`migrations failed on the test database: ${migrate.stderr}${migrate.stdout}`);
  process.env.CHRONICLE_TEST_ADMIN_URL = adminUrl;
  process.env.CHRONICLE_TEST_TEMPLATE_DB = TEMPLATE_DB;
}
