import type pg from 'pg';
import { engineOf, PostgresEventStore, type PostgresEventStoreOptions, sealEventStore, type SessionKeyring } from '#event-store';
import { liveNotifyProjection } from './live/live-notify.projection.js';
import { sessionSummaryProjection } from './session-summary/session-summary.projection.js';

export interface SessionEventStoreOptions extends Omit<PostgresEventStoreOptions, 'inline'> {
  /**
   * Whether each append tells the live feeds of every replica (`liveNotifyProjection`); default true. Off only
   * where nothing can listen (a benchmark of the bare write path).
   */
  readonly live?: boolean;
  /**
   * Seals each session's content with its data key (`sealEventStore`); absent or null: content stored plain (and
   * still read through it: dropped content and older schemas).
   */
  readonly keyring?: SessionKeyring | null;
}

/**
 * The event store as Chronicle runs it, for every caller (the service, the CLI, the tests, the benches): the
 * PostgreSQL store with the inline read models each append writes in its own statement, the session summary
 * row and the live NOTIFY. The one place that lists them, so no caller's store lacks one. The engine (one
 * server or a Citus cluster) is read from the database.
 */
export async function createSessionEventStore(pool: pg.Pool, options: SessionEventStoreOptions = {}): Promise<PostgresEventStore> {
  const { live = true, keyring = null, ...rest } = options;
  const store = new PostgresEventStore(pool, {
    ...rest,
    // A Citus cluster with the tables distributed takes the routed append; one server, the fused one.
    engine: rest.engine ?? (await engineOf(pool)),
    inline: live ? [sessionSummaryProjection, liveNotifyProjection] : [sessionSummaryProjection],
  });
  return sealEventStore(store, keyring);
}
