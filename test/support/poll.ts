export interface PollOptions {
  /** How long to wait before the test fails; 5 s unless a case needs more (a restart, a projector pass). */
  readonly timeoutMs?: number;
  /** The pause between two probes. */
  readonly intervalMs?: number;
}

const describe = (value: unknown): string => {
  if (typeof value === 'string') return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return String(value);
  }
};

/**
 * Probes until `done(value)` holds (by default: until the value is truthy) and answers that value. The one way
 * tests wait for something that happens in the background (a projector pass, a log line, an event on a stream,
 * a restarted server): past `timeoutMs` it throws, failing the test with `what` it waited for and the last value
 * it saw, so no test carries on after a wait that did not end. A probe that throws fails the test at once.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => T | Promise<T>,
  done: (value: T) => boolean = Boolean,
  { timeoutMs = 5_000, intervalMs = 25 }: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() >= deadline) throw new Error(`waited ${timeoutMs} ms for ${what}; last seen: ${describe(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
