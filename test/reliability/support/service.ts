import { join } from 'node:path';
import { httpCall, startServiceProcess, type ServiceProcess } from '../../../bench/service-process.js';
import { freePort } from '#platform';
import { TEST_KEYS_SPEC } from '../../support/app.js';
import { pollUntil } from '../../support/poll.js';

/** The built service (global setup builds dist/ for its `npm run migrate`). */
const MAIN = join(process.cwd(), 'dist/apps/session-api/src/main.js');

/**
 * The real service as a child process on a port of its own, so a test can `kill -9` it and start it again
 * on the same port and database. Reuses the bench's process helper (spawn, stderr tail, cleanup on exit).
 */
export class ServiceUnderTest {
  private process: ServiceProcess | null = null;
  starts = 0;

  private constructor(
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  static async start(databaseUrl: string, env: Record<string, string> = {}): Promise<ServiceUnderTest> {
    const port = await freePort();
    const service = new ServiceUnderTest(port, {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      CHRONICLE_API_KEYS: TEST_KEYS_SPEC,
      LOG_LEVEL: 'warn',
      CHRONICLE_RECOVERY_INTERVAL_MS: '0',
      ...env,
    });
    await service.restart();
    return service;
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the process and waits until it serves (the database may still be down: `live`, not `ready`). */
  async restart(): Promise<void> {
    this.process = startServiceProcess(`chronicle-${this.port}`, MAIN, this.env);
    this.starts += 1;
    const live = () => httpCall(this.port, 'GET', '/health/live').then((r) => r.status, () => 0);
    try {
      await pollUntil('the service to serve /health/live', live, (status) => status === 200, { timeoutMs: 30_000, intervalMs: 100 });
    } catch (error) {
      throw new Error(`the service did not start: ${this.process.stderrTail()}`, { cause: error });
    }
  }

  /** SIGKILL: no shutdown hook runs, in-flight requests die with their sockets. */
  kill9(): void {
    if (this.process) process.kill(this.process.pid, 'SIGKILL');
    this.process = null;
  }

  async stop(): Promise<void> {
    await this.process?.stop();
    this.process = null;
  }

  stderrTail(): string {
    return this.process?.stderrTail() ?? '';
  }
}
