import type pg from 'pg';

/** One statement of a transaction (a named one is prepared once per connection). */
export interface Statement {
  readonly text: string;
  readonly values?: readonly unknown[];
  readonly name?: string;
}

/**
 * Sends several statements of one transaction in a single write and, on a client in pg's pipeline mode,
 * without waiting for each answer before the next (one round trip). The event store uses it when a hook
 * projection holds the append's transaction open: BEGIN goes with the append statement, COMMIT after the hooks.
 * A client without pipeline mode still runs them in order, one round trip each.
 */
export class PipelinedTransaction {
  /** The COMMIT was queued: from here the transaction's fate is PostgreSQL's answer to it. */
  committing = false;
  /** PostgreSQL answered the COMMIT with ROLLBACK: nothing was kept, the outcome is known. */
  rolledBack = false;

  constructor(private readonly client: pg.PoolClient) {}

  /** Queues every statement in this tick, corked into one socket write; settles when all have answered. */
  send(statements: readonly Statement[]): Promise<pg.QueryResult[]> {
    return Promise.all(this.queue(statements.map(toConfig)));
  }

  /** COMMIT; PostgreSQL answering it with ROLLBACK (an earlier failure) is an error. */
  async commit(): Promise<void> {
    this.committing = true;
    const [result] = await Promise.all(this.queue([{ text: 'COMMIT' }]));
    if (result.command !== 'COMMIT') {
      this.rolledBack = true;
      throw new Error(`the transaction ended with ${result.command}, not COMMIT`);
    }
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

function toConfig(statement: Statement): pg.QueryConfig {
  const values = statement.values ? [...statement.values] : [];
  return statement.name ? { name: statement.name, text: statement.text, values } : { text: statement.text, values };
}
