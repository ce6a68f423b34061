import pg from 'pg';
import { redactUrl } from '#platform';

export interface WaitOptions {
  /** Give up after this long (default 60 s): the start fails, naming what it waited for. */
  readonly timeoutMs?: number;
  readonly firstDelayMs?: number;
  readonly maxDelayMs?: number;
  /** What is waited for, for the error (default "the database"); its URL follows, without the password. */
  readonly what?: string;
  /**
   * The server answering is enough: a database it does not hold yet (3D000) counts as reached (the key store's,
   * which its opening creates).
   */
  readonly serverOnly?: boolean;
  readonly log: (attempt: number, delayMs: number, error: Error) => void;
}

/** The start gave up waiting: the message names what and where (without the password), and the last error. */
export class StartupWaitError extends Error {
  override readonly name = 'StartupWaitError';
}

/**
 * Waits until `url` accepts a connection and answers `SELECT 1`, retrying with a doubling delay (a server that
 * starts after the service, as compose or a failover may have it). Each failed attempt is logged.
 */
export async function waitForDatabase(url: string, options: WaitOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let delay = options.firstDelayMs ?? 250;
  for (let attempt = 1; ; attempt += 1) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      // 3D000: invalid_catalog_name (the database does not exist): the server answered.
      if (options.serverOnly && (error as { code?: string }).code === '3D000') return;
      if (Date.now() + delay > deadline) {
        throw new StartupWaitError(
          `${options.what ?? 'the database'} at ${redactUrl(url)} did not answer within ${timeoutMs / 1000} s: ${(error as Error).message}`,
          { cause: error },
        );
      }
      options.log(attempt, delay, error as Error);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, options.maxDelayMs ?? 5000);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
