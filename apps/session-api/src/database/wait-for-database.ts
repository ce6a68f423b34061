import pg from 'pg';

export interface WaitOptions {
  /** Give up after this long (default 60 s): the start fails with the last error. */
  readonly timeoutMs?: number;
  readonly firstDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly log: (attempt: number, delayMs: number, error: Error) => void;
}

/**
 * Waits until `url` accepts a connection and answers `SELECT 1`, retrying with a doubling delay (a server that
 * starts after the service, as compose or a failover may have it). Each failed attempt is logged.
 */
export async function waitForDatabase(url: string, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let delay = options.firstDelayMs ?? 250;
  for (let attempt = 1; ; attempt += 1) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() + delay > deadline) throw error;
      options.log(attempt, delay, error as Error);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, options.maxDelayMs ?? 5000);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}
