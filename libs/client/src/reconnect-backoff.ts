/** How a connection that dropped is retried: exponential delays between `initialDelayMs` and `maxDelayMs`. */
export interface ReconnectOptions {
  /** The delay before the first retry; 100 ms by default. */
  readonly initialDelayMs?: number;
  /** The longest delay between two retries; 5 s by default. */
  readonly maxDelayMs?: number;
}

/**
 * The delay before retry number `attempt` (0 for the first): doubling from `initialDelayMs` up to `maxDelayMs`,
 * each drawn from its upper half so clients cut off together do not all return at the same instant. A server's
 * `retry:` hint (an event stream's reconnection time), when given, is the floor the doubling starts from after
 * the first retry: the first still comes soon (a replica that shut down is replaced at once), and a service that
 * keeps refusing is not asked more often than it said. The one policy of the client library's writer and
 * watcher and of the admin dashboard's live view.
 */
export function reconnectDelay(attempt: number, options: ReconnectOptions = {}, random: () => number = Math.random, retryHintMs: number | null = null): number {
  const initial = options.initialDelayMs ?? 100;
  const max = options.maxDelayMs ?? 5_000;
  const base = attempt === 0 || retryHintMs === null ? initial : Math.max(initial, retryHintMs);
  const ceiling = Math.min(max, base * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/**
 * Whether an answer may be different when asked again: a timeout (408), too early (425), rate limited (429), or
 * a server error other than 501 and 505 (the service, a proxy, restarting or overloaded). Anything else (the key
 * refused, the session unknown or erased) ends the writer's or watcher's retries and the dashboard's live view.
 * The one list of the client library and the admin dashboard.
 */
export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 425 || status === 429 || (status >= 500 && status <= 599 && status !== 501 && status !== 505);

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
