import type pg from 'pg';
import { evolveAll, fromSessionStreamId, initialSessionState, render, toSessionStreamId } from '#domain';
import { acrossSessions, allowFanOut, engineOf, type EventStore, type LogCursor, queryAcrossSessions, START } from '#event-store';
import { indexRowOf, type StoredIndexRow } from '../session-index/index-row.builder.js';
import { LruCache } from '../lru-cache.js';
import { writeCheckpoint } from '../projection-checkpoints.js';
import {
  type DataKeySource,
  type IndexRowWrite,
  SESSION_INDEX,
  SESSION_INDEX_PROJECTOR_LOCK,
  withDataKeys,
  writeIndexRows,
} from '../session-index/session-index.projector.js';
import { toDomainEvent } from '../session-views.js';
import type { RebuildTracker } from './rebuild-progress.js';
import { createShadowTable, swapTables } from './table-swap.js';

export const SESSION_INDEX_NEXT = `${SESSION_INDEX}_next`;
const SWAP_ATTEMPTS = 3;

export interface IndexRebuildContext {
  readonly pool: pg.Pool;
  readonly store: EventStore;
  /** The connection holding the rebuild lock; the swap transaction runs on it. */
  readonly client: pg.PoolClient;
  readonly tracker: RebuildTracker;
  readonly pageSize: number;
  readonly beforeSwap?: () => Promise<void>;
  readonly keys?: DataKeySource | null;
}

/** Sessions already folded at (at least) a version: a later page of the same session's old events skips it. */
type Folded = LruCache<string, number>;

/** A fresh fold of the whole stream (never the live cache or a snapshot), as the row the projector writes. */
async function freshRow(store: EventStore, sessionId: string): Promise<StoredIndexRow | null> {
  const events = await store.readStream(toSessionStreamId(sessionId));
  const last = events.at(-1);
  if (!last) return null;
  return indexRowOf(render(evolveAll(initialSessionState(), events.map(toDomainEvent))), last.version);
}

/**
 * Reads the log from `after` to its visible end into `session_index_next`; returns the checkpoint reached.
 * `inTransaction`: the swap's transaction is open on the client (it already allows writes across sessions).
 */
async function fill(context: IndexRebuildContext, after: LogCursor, folded: Folded, inTransaction: boolean): Promise<LogCursor> {
  const { client, store, tracker } = context;
  const engine = await engineOf(context.pool);
  let checkpoint = after;
  for (;;) {
    const { events, checkpoint: next } = await store.readAll({ after: checkpoint, limit: context.pageSize });
    if (events.length === 0) return checkpoint;
    const touched = new Map<string, number>();
    for (const event of events) {
      const sessionId = fromSessionStreamId(event.streamId);
      if (sessionId) touched.set(sessionId, Math.max(touched.get(sessionId) ?? 0, event.version));
    }
    const rows: IndexRowWrite[] = [];
    for (const [sessionId, version] of touched) {
      if ((folded.get(sessionId) ?? 0) >= version) continue;
      const row = await freshRow(store, sessionId);
      if (!row) continue;
      rows.push({ sessionId, row });
      folded.set(sessionId, row.version);
    }
    // The page's rows land together, inside the swap's transaction or in one of their own.
    if (rows.length > 0) {
      const sealed = await withDataKeys(context.keys, rows);
      if (inTransaction) await writeIndexRows(client, engine, SESSION_INDEX_NEXT, sealed);
      else await acrossSessions(client, engine, () => writeIndexRows(client, engine, SESSION_INDEX_NEXT, sealed));
    }
    tracker.rows += rows.length;
    tracker.eventsReplayed += events.length;
    checkpoint = next;
    tracker.report();
  }
}

const isLockTimeout = (error: unknown) => (error as { code?: string }).code === '55P03';

/**
 * Blue/green rebuild of `session_index`: fill `session_index_next` from the log beside the live table,
 * then in one short transaction (holding the projector's lock, so no pass writes meanwhile) catch up the
 * remainder, swap the tables by name and move the projector's checkpoint. Readers only wait for that swap.
 */
export async function rebuildSessionIndex(context: IndexRebuildContext): Promise<number> {
  const { client, tracker } = context;
  const engine = await engineOf(context.pool);
  await createShadowTable(client, SESSION_INDEX, SESSION_INDEX_NEXT, engine);
  const planned = await queryAcrossSessions(context.pool, { text: 'SELECT coalesce(sum(version), 0)::float8 AS events FROM streams' });
  tracker.eventsToReplay = Number(planned.rows[0].events);
  const folded: Folded = new LruCache(10_000);
  const filled = await fill(context, START, folded, false);
  await context.beforeSwap?.();
  for (let attempt = 1; ; attempt += 1) {
    await client.query('BEGIN');
    try {
      await allowFanOut(client, engine);
      await client.query('SELECT pg_advisory_xact_lock($1)', [SESSION_INDEX_PROJECTOR_LOCK]);
      await client.query('SELECT 1 FROM projection_checkpoints WHERE name = $1 FOR UPDATE', [SESSION_INDEX]);
      tracker.report('catch-up');
      const caughtUp = await fill(context, filled, folded, true);
      tracker.report('swap');
      const counted = await client.query(`SELECT count(*)::int AS rows FROM ${SESSION_INDEX_NEXT}`);
      // A long reader must not hold every other reader queued behind the swap: give up and retry instead.
      await client.query(`SET LOCAL lock_timeout = '5s'`);
      await swapTables(client, SESSION_INDEX, SESSION_INDEX_NEXT);
      await writeCheckpoint(client, SESSION_INDEX, caughtUp);
      await client.query('COMMIT');
      return counted.rows[0].rows;
    } catch (error) {
      await client.query('ROLLBACK');
      if (!isLockTimeout(error) || attempt >= SWAP_ATTEMPTS) throw error;
      // The catch-up rows went with the rollback: fold those sessions again on the next attempt.
      folded.clear();
    }
  }
}
