import { randomUUID } from 'node:crypto';
import pg from 'pg';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file, cloned from the template the global setup made. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.CHRONICLE_TEST_ADMIN_URL;
  const template = process.env.CHRONICLE_TEST_TEMPLATE_DB;
  if (!adminUrl || !template) throw new Error('the jest global setup did not start a test PostgreSQL');
  const name = `t_${randomUUID().replaceAll('-', '')}`;
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
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
