import { KEYS } from '../../support/app.js';

/** What every request of a reliability run got: the suites assert on these counts. */
export interface Tally {
  acknowledged: number;
  retries: number;
  unavailable503: number;
  /** 5xx other than 503, and any other status a retrying client cannot act on. */
  serverErrors: number;
  unexpected: string[];
  /** Requests that got no answer within the timeout (a hang). */
  hangs: number;
}

export const newTally = (): Tally => ({ acknowledged: 0, retries: 0, unavailable503: 0, serverErrors: 0, unexpected: [], hangs: 0 });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A client as the contract asks it to behave: it sends a write with its natural keys and, on a lost
 * connection or a 503, sends the same write again until it is answered 2xx (a repeat answers `duplicate`).
 * A request not answered within `timeoutMs` is counted as a hang (and retried).
 */
export async function sendUntilAcknowledged(
  base: () => string,
  path: string,
  body: unknown,
  tally: Tally,
  options: { key?: string; timeoutMs?: number; deadlineMs?: number } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const deadline = Date.now() + (options.deadlineMs ?? 120_000);
  for (let attempt = 0; ; attempt += 1) {
    if (attempt > 0) tally.retries += 1;
    if (Date.now() > deadline) throw new Error(`${path}: not acknowledged before the deadline`);
    let response: Response;
    try {
      response = await fetch(`${base()}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.key ?? KEYS.ingest}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
      });
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') tally.hangs += 1;
      await pause(50);
      continue;
    }
    const text = await response.text().catch(() => null);
    if (text === null) continue;
    if (response.status === 503) {
      tally.unavailable503 += 1;
      await pause(100);
      continue;
    }
    if (response.status >= 500) tally.serverErrors += 1;
    if (response.status >= 200 && response.status < 300) {
      tally.acknowledged += 1;
      return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
    }
    tally.unexpected.push(`${path} ${response.status} ${text.slice(0, 200)}`);
    if (response.status >= 500) {
      await pause(100);
      continue;
    }
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  }
}
