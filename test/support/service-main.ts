import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { TEST_KEYS_SPEC } from './app.js';

/** The built service (global setup builds dist/ for its `npm run migrate`). */
const MAIN = join(process.cwd(), 'dist/apps/session-api/src/main.js');
/** The configuration a developer's shell may carry is not inherited: a test runs with what it sets. */
const SERVICE_CONFIG = /^(CHRONICLE_.*|DATABASE_URL|PORT|HOST|LOG_LEVEL)$/;

export interface ServiceMain {
  readonly child: ChildProcess;
  /** The JSON log lines written to stdout so far. */
  readonly lines: Record<string, unknown>[];
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

/** `node dist/apps/session-api/src/main.js` with `env`, its stdout parsed as pino lines. */
export function startServiceMain(env: Record<string, string>): ServiceMain {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SERVICE_CONFIG.test(name)));
  const child = spawn(process.execPath, [MAIN], { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let stdout = '';
  let stderr = '';
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const parts = (pending + chunk).split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) if (part.startsWith('{')) lines.push(JSON.parse(part));
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, lines, stdout: () => stdout, stderr: () => stderr, exited };
}

/**
 * The built service as `npm start` runs it: its own embedded PostgreSQL in `dataDir`, on 127.0.0.1:`port`, with
 * the test keys (`KEYS`) and no recovery ticks.
 */
export const startEmbeddedServiceMain = (dataDir: string, port: number): ServiceMain =>
  startServiceMain({
    CHRONICLE_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    CHRONICLE_API_KEYS: TEST_KEYS_SPEC,
    LOG_LEVEL: 'info',
    CHRONICLE_RECOVERY_INTERVAL_MS: '0',
  });
