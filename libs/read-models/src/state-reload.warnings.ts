/**
 * Says in the log, at most once a period, that fold states dropped to make room are being loaded again: the
 * sessions being worked on hold more fold state than the states' half of `CHRONICLE_VIEW_CACHE_BYTES`. Each such
 * load reads the session's pending turn back from the store (its journal lives in the stream, not in the
 * snapshot), so an append to a session deep in a streaming turn costs what the turn's length costs instead of
 * what one event does, and with more such sessions than fit the cache drops each one before its next append.
 */
export class StateReloadWarnings {
  private reloads = 0;
  private events = 0;
  private warnedAt = Number.NEGATIVE_INFINITY;

  constructor(
    /** The whole view budget (`CHRONICLE_VIEW_CACHE_BYTES`); fold states get half. */
    private readonly budgetBytes: number,
    private readonly warn: (message: string) => void,
    private readonly now: () => number = Date.now,
    private readonly periodMs = 60_000,
  ) {}

  record(eventsRead: number): void {
    this.reloads += 1;
    this.events += eventsRead;
    const at = this.now();
    if (at - this.warnedAt < this.periodMs) return;
    const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
    this.warn(
      `${this.reloads} fold state(s) dropped to make room were loaded again, reading ${this.events} event(s) from the store` +
        `${Number.isFinite(this.warnedAt) ? ` in the last ${Math.round((at - this.warnedAt) / 1000)} s` : ''}: the sessions being worked on ` +
        `need more than the ${mb(this.budgetBytes / 2)} MB of fold state CHRONICLE_VIEW_CACHE_BYTES (${mb(this.budgetBytes)} MB) allows, and each ` +
        'such append re-reads its pending turn. Raise CHRONICLE_VIEW_CACHE_BYTES (README, "Memory").',
    );
    this.warnedAt = at;
    this.reloads = 0;
    this.events = 0;
  }
}
