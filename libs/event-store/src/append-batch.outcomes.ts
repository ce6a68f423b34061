import pg from 'pg';
import {
  type AppendResult,
  ConcurrencyError,
  IdempotencyKeyTaken,
  type NewEvent,
} from './event-store.js';
import type { BatchOutcome } from './group-commit.queue.js';
import { InlineProjectionError } from './inline-projection.error.js';

/** One append waiting in (or sent with) a group commit, its data already in canonical JSON. */
export interface PendingAppend {
  readonly streamId: string;
  readonly events: readonly NewEvent[];
  readonly expected: number | null;
  readonly keys: readonly string[];
  readonly canon: readonly string[];
  readonly meta: readonly string[];
  readonly context: unknown;
  /** Asked to be committed relaxed (`AppendOptions.durability`). */
  readonly relaxed: boolean;
}

/** One outcome row of chronicle_append_batch. */
export interface ItemRow {
  item: number;
  outcome: 'ok' | 'conflict' | 'duplicate';
  version: string;
  last_hash: string | null;
  positions: string[] | null;
}

/** Code-unit order, the same on every replica (localeCompare would depend on the locale). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An item's outcome from its row; `durable` says how its transaction committed. */
export function toOutcome(item: PendingAppend, row: ItemRow, durable = true): BatchOutcome<AppendResult>[number] {
  const expected = item.expected ?? 'any';
  if (row.outcome === 'conflict') return { ok: false, error: new ConcurrencyError(item.streamId, expected, Number(row.version)) };
  if (row.outcome === 'duplicate') return { ok: false, error: new IdempotencyKeyTaken(item.streamId, Number(row.version)) };
  return {
    ok: true,
    value: { streamId: item.streamId, version: Number(row.version), globalPositions: row.positions ?? [], lastHash: row.last_hash ?? '', durable },
  };
}

/**
 * A unique violation the locks should prevent (a stream created twice at once) is still a lost race. Only the
 * event store's own keys say so: a fused projection's unique violation is that projection's failure.
 */
export function translate(error: unknown, item: PendingAppend): unknown {
  const pgError = error as { code?: string; constraint?: string; message?: string };
  if (pgError.code !== '23505') return error;
  const key = storeKeyOf(pgError.constraint ?? /unique constraint "([^"]+)"/.exec(pgError.message ?? '')?.[1]);
  if (key === 'idempotency_keys_pkey') return new IdempotencyKeyTaken(item.streamId);
  if (key === 'events_pkey' || key === 'streams_pkey') return new ConcurrencyError(item.streamId, item.expected ?? 'any', null);
  return error;
}

/**
 * The event store's key a violated constraint is, by its name: on Citus the violation names the shard's copy, the
 * key's name with the shard id appended (`streams_pkey_102032`), and through the coordinator only in the message
 * (its `constraint` field is empty: measured on Citus 13.2).
 */
function storeKeyOf(constraint: string | undefined): string | null {
  const match = /^(events_pkey|streams_pkey|idempotency_keys_pkey)(?:_\d+)?$/.exec(constraint ?? '');
  return match === null ? null : match[1];
}

/** SQLSTATE classes of a broken connection or server: the batch's fate is not the items' fault. */
const CONNECTION_CLASSES = new Set(['08', '53', '57', '58', 'XX']);

/**
 * PostgreSQL answered the statement with an error of its own (a SQLSTATE outside the connection classes): the
 * statement, and with it its implicit transaction, was rolled back. A broken connection is not one: the
 * statement may have committed before the answer was lost.
 */
export function isStatementError(error: unknown): boolean {
  // Only an answer of the server's: a socket error's code (EPIPE) has the same shape as a SQLSTATE.
  return error instanceof pg.DatabaseError && typeof error.code === 'string' && !CONNECTION_CLASSES.has(error.code.slice(0, 2));
}

export function isRetryableAlone(error: unknown): boolean {
  if (error instanceof CommitOutcomeUnknown) return false;
  if (error instanceof InlineProjectionError) return true;
  return isStatementError(error);
}

/** The connection broke while COMMIT was under way: the batch may or may not have committed, so none is acknowledged. */
export class CommitOutcomeUnknown extends Error {
  constructor(override readonly cause: unknown) {
    super(`the commit's outcome is unknown: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'CommitOutcomeUnknown';
  }
}
