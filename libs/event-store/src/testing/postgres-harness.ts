import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { InlineProjection } from '../event-store.js';
import { PostgresEventStore, type PostgresEventStoreOptions } from '../postgres-event-store.js';
import type { ContractHarness } from './event-store.contract.js';

/**
 * A PostgreSQL store for the contract suite. Its pool carries its own application_name, so `sever` can
 * terminate exactly this store's connections that sit inside a transaction.
 */
export function postgresHarness(
  url: string,
  inline: readonly InlineProjection[],
  options: Omit<PostgresEventStoreOptions, 'inline'> = {},
): ContractHarness & { store: PostgresEventStore } {
  const application = `contract-${randomUUID()}`;
  // Several transactions in flight at once, as several replicas (or CHRONICLE_APPEND_IN_FLIGHT > 1) make them:
  // the suite commits one writer's transaction while another's is still open (the xid8 fence's case).
  const store = new PostgresEventStore(new pg.Pool({ connectionString: url, max: 10, application_name: application, pipeline: true }), {
    ...options,
    groupCommit: { maxInFlight: 4, ...options.groupCommit },
    inline,
  });
  return {
    store,
    async sever() {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE application_name = $1 AND state LIKE 'idle in transaction%'`,
          [application],
        );
      } finally {
        await admin.end();
      }
    },
  };
}
