import type pg from 'pg';
import { NOTIFY_CHANNEL } from '#read-models';

/** How often a LISTEN connection is checked when the service says nothing else (`CHRONICLE_LIVE_HEARTBEAT_MS`). */
export const DEFAULT_LISTEN_CHECK_MS = 15_000;

/**
 * Checks a LISTEN connection every `periodMs` by saying `LISTEN` again (a no-op on a channel it listens on, and
 * what `pg_stat_activity` keeps showing as its statement). A connection that went silent under it (a
 * partition, a host gone without a reset) emits no error and no end, so LISTEN on it would hear nothing for good;
 * the check's statement is given up after the pool's `query_timeout` (`CHRONICLE_DB_QUERY_TIMEOUT_MS`), which
 * drops the connection, and its owner reconnects as after any loss. One check at a time: a check still unanswered
 * is not joined by another. Answers the function that stops the checks.
 */
export function checkListening(client: pg.ClientBase, periodMs: number): () => void {
  let waiting = false;
  const timer = setInterval(() => {
    if (waiting) return;
    waiting = true;
    client.query(`LISTEN ${NOTIFY_CHANNEL}`).then(
      () => (waiting = false),
      () => (waiting = false),
    );
  }, periodMs);
  timer.unref();
  return () => clearInterval(timer);
}
