/**
 * Errors that mean PostgreSQL cannot be reached or is going away (a restart, a failover, an outage), as
 * opposed to a fault of the request or a bug. They are answered 503 with Retry-After: nothing was
 * acknowledged, and a client retrying with the same natural keys later gets a duplicate or its append.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is unavailable: class 08 (connection exception), 57P01–57P03 (admin or crash
 * shutdown, cannot connect now), 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;

/**
 * What node-postgres says, without a code, when its socket closes, its pool cannot connect in time, or a statement
 * goes unanswered past `query_timeout` (its connection is then dropped).
 */
const PG_CONNECTION_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Connection refused|Query read timeout/i;

/** Retry-After (seconds) of a 503 for an unreachable database: a restart or failover takes a few seconds. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

function unavailableItself(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (typeof e !== 'object' || e === null) return false;
  if (typeof e.code === 'string' && (SOCKET_CODES.has(e.code) || UNAVAILABLE_SQLSTATE.test(e.code))) return true;
  return typeof e.message === 'string' && PG_CONNECTION_MESSAGES.test(e.message);
}

/**
 * pg-pool's word for a request that waited past `connectionTimeoutMillis` for one of the pool's clients, all busy
 * (a connection that could not be made says "Connection terminated due to connection timeout"): the request is
 * answered 503 like an unreachable database, but the database answered the others, so it is no outage.
 */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/** True when the error, or one it wraps, is a wait for a busy pool's client that ran out (`POOL_WAIT_TIMEOUT`). */
export function isPoolWaitTimeout(error: unknown): boolean {
  for (let next = error, depth = 0; next instanceof Error && depth < 8; next = next.cause, depth += 1) {
    if (next.message === POOL_WAIT_TIMEOUT) return true;
  }
  return false;
}

/** True when the error, or an error it wraps (`cause`, an AggregateError's `errors`), says the database is unreachable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next !== 'object' || seen.has(next)) continue;
    seen.add(next);
    if (unavailableItself(next)) return true;
    const { cause, errors } = next as { cause?: unknown; errors?: unknown };
    pending.push(cause);
    if (Array.isArray(errors)) pending.push(...errors);
  }
  return false;
}
