/** How a connection that dropped is retried: exponential delays between `initialDelayMs` and `maxDelayMs`. */
export interface ReconnectOptions {
  /** The delay before the first retry; 100 ms by default. */
  readonly initialDelayMs?: number;
  /** The longest delay between two retries; 5 s by default. */
  readonly maxDelayMs?: number;
}

/**
 * The delay before retry number `attempt` (0 for the first): doubling from `initialDelayMs` up to `maxDelayMs`,
 * each drawn from its upper half so clients cut off together do not all return at the same instant.
 */
export function reconnectDelay(attempt: number, options: ReconnectOptions = {}, random: () => number = Math.random): number {
  const initial = options.initialDelayMs ?? 100;
  const max = options.maxDelayMs ?? 5_000;
  const ceiling = Math.min(max, initial * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
