import { isDatabaseUnavailable, isPoolWaitTimeout } from '../errors/database-unavailable.js';

/** Where the service's log lines about the database's reachability go. */
export type ReachabilityLog = (level: 'warn' | 'info', fields: Readonly<Record<string, unknown>>, message: string) => void;

export interface ReachabilityOptions {
  readonly log: ReachabilityLog;
  /** Told on every change (a gauge). */
  readonly onChange?: (reachable: boolean) => void;
  readonly clock?: () => number;
}

/**
 * The one home of "is PostgreSQL reachable": every part that meets the database (requests, the pool, the
 * readiness probe, the projector, the recovery supervisor, the continuous auditor, the live listener)
 * reports here, and a change of state is logged once: `database unreachable` at the first failure,
 * `database reachable again` (with how long and how many failures) at the first success after it. While it
 * is down, further failures are only counted, so an outage costs two lines, not one per second or request.
 */
export class DatabaseReachability {
  private outage: { readonly since: number; failures: number; readonly sources: Set<string> } | null = null;
  private readonly clock: () => number;

  constructor(private readonly options: ReachabilityOptions) {
    this.clock = options.clock ?? Date.now;
  }

  get reachable(): boolean {
    return this.outage === null;
  }

  /** `source` could not reach the database (a wait for a busy pool's client that ran out is no outage: ignored). */
  unreachable(source: string, error: unknown): void {
    if (isPoolWaitTimeout(error)) return;
    if (this.outage) {
      this.outage.failures += 1;
      this.outage.sources.add(source);
      return;
    }
    this.outage = { since: this.clock(), failures: 1, sources: new Set([source]) };
    this.options.log('warn', { source, err: messageOf(error) }, 'database unreachable');
    this.options.onChange?.(false);
  }

  /** Now, on this object's clock: when a check that may end an outage (`reached(askedAt)`) is sent. */
  now(): number {
    return this.clock();
  }

  /**
   * Something reached the database (a new connection that answered, a probe that answered). `askedAt`: when
   * that check was sent (`now()`). An answer to a check sent before the outage began ends nothing: it can be
   * read after the first failure was seen (one event-loop turn later) while the server is already gone.
   */
  reached(askedAt?: number): void {
    const outage = this.outage;
    if (!outage) return;
    if (askedAt !== undefined && askedAt < outage.since) return;
    this.outage = null;
    const downSeconds = Math.round((this.clock() - outage.since) / 100) / 10;
    this.options.log('info', { downSeconds, failures: outage.failures, sources: [...outage.sources] }, 'database reachable again');
    this.options.onChange?.(true);
  }

  /**
   * For the loops' error callbacks: an unreachable database is reported here (and logged once), and true is
   * answered so the caller logs nothing of its own; any other error is the caller's to log.
   */
  absorbs(source: string, error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    this.unreachable(source, error);
    return true;
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
