import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runMigrations } from '#platform';

/** The compiled `npm run migrate` runner (apps/session-api/src/migrate.ts). */
const RUNNER = fileURLToPath(new URL('../migrate.js', import.meta.url));

/**
 * Applies the pending migrations in a child process (the compiled migrate runner with `--json`), so TypeORM and
 * the migrations' code never load into the service, whose resident memory they would swell for the life of the
 * process (bench/README.md). Where the compiled runner is absent (the sources under a test runner) they run in
 * this process. Same lock, same migrations, same answer: the names applied.
 */
export async function migrateApart(url: string): Promise<string[]> {
  if (!existsSync(RUNNER)) return runMigrations(url);
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [RUNNER, '--json'], {
      env: { ...process.env, DATABASE_URL: url },
      maxBuffer: 1024 * 1024,
    });
    const answer = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as { applied?: unknown };
    if (!Array.isArray(answer.applied)) throw new Error(`unexpected answer: ${stdout.trim()}`);
    return answer.applied.map(String);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`migrations failed: ${stderr || (error as Error).message}`, { cause: error });
  }
}
