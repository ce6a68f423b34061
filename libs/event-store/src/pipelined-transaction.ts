import type pg from 'pg';
import type { InlineStatement } from './event-store.js';
import { InlineProjectionError } from './inline-projection.error.js';

/**
 * Sends several statements of one transaction in a single write and, on a client in pg's pipeline mode,
 * without waiting for each answer before the next (one round trip). On this machine a socket write costs
 * ~0.1 ms of CPU, more than the statements themselves, so an append batch takes two writes: BEGIN with the
 * append, then the inline projections' statements with the COMMIT. A client without pipeline mode still runs
 * them in order, one round trip each.
 */
export class PipelinedTransaction {
  /** The COMMIT was queued: from here the transaction's fate is PostgreSQL's answer to it. */
  committing = false;
  /** PostgreSQL answered the COMMIT with ROLLBACK: nothing was kept, the outcome is known. */
  rolledBack = false;

  constructor(private readonly client: pg.PoolClient) {}

  /** Queues every statement in this tick, corked into one socket write; settles when all have answered. */
  send(statements: readonly InlineStatement[]): Promise<pg.QueryResult[]> {
    return Promise.all(this.queue(statements.map(toConfig)));
  }

  /** The projections' statements, then COMMIT; a statement that failed (so the COMMIT rolled back) is rethrown as its projection's. */
  async commitAfter(statements: readonly { projection: string; statement: InlineStatement }[]): Promise<void> {
    this.committing = true;
    const outcomes = await Promise.allSettled(this.queue([...statements.map(({ statement }) => toConfig(statement)), { text: 'COMMIT' }]));
    const failed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
    if (failed >= 0 && failed < statements.length) {
      throw new InlineProjectionError(statements[failed].projection, (outcomes[failed] as PromiseRejectedResult).reason);
    }
    const commit = outcomes[outcomes.length - 1];
    if (commit.status === 'rejected') throw commit.reason;
    if (commit.value.command !== 'COMMIT') throw new Error(`the transaction ended with ${commit.value.command}, not COMMIT`);
  }

  /**
   * BEGIN and the append (`head`), the guarded projections' statements and COMMIT in one write: the answer of
   * the append's last statement is returned. A failure PostgreSQL answered (the COMMIT then says ROLLBACK) is
   * rethrown as such, a projection's as its InlineProjectionError; a COMMIT without an answer rethrows its error.
   */
  async sendAndCommit(
    head: readonly InlineStatement[],
    statements: readonly { projection: string; statement: InlineStatement }[],
  ): Promise<pg.QueryResult> {
    this.committing = true;
    const configs = [...head.map(toConfig), ...statements.map(({ statement }) => toConfig(statement)), { text: 'COMMIT' }];
    const outcomes = await Promise.allSettled(this.queue(configs));
    const commit = outcomes[outcomes.length - 1];
    if (commit.status === 'rejected') throw commit.reason;
    const failed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
    if (failed >= 0 || commit.value.command !== 'COMMIT') {
      this.rolledBack = true;
      if (failed < 0) throw new Error(`the transaction ended with ${commit.value.command}, not COMMIT`);
      const reason = (outcomes[failed] as PromiseRejectedResult).reason;
      throw failed < head.length ? reason : new InlineProjectionError(statements[failed - head.length].projection, reason);
    }
    return (outcomes[head.length - 1] as PromiseFulfilledResult<pg.QueryResult>).value;
  }

  /**
   * Pipelined: every query is submitted now, inside one cork (pg keeps the socket on `connection.stream`;
   * cork/uncork nest, so pg's own per-query corking joins ours). Otherwise each waits for the one before.
   */
  private queue(configs: readonly pg.QueryConfig[]): Promise<pg.QueryResult>[] {
    if (!this.client.pipeline) {
      let previous: Promise<unknown> = Promise.resolve();
      return configs.map((config) => {
        const next = previous.then(() => this.client.query(config));
        previous = next.catch(() => undefined);
        return next;
      });
    }
    const stream = (this.client as unknown as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection?.stream;
    stream?.cork?.();
    try {
      return configs.map((config) => this.client.query(config));
    } finally {
      stream?.uncork?.();
    }
  }
}

function toConfig(statement: InlineStatement): pg.QueryConfig {
  return statement.name
    ? { name: statement.name, text: statement.text, values: [...statement.values] }
    : { text: statement.text, values: [...statement.values] };
}
