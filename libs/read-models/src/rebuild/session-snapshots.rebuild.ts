import type pg from 'pg';
import { evolveAll, initialSessionState, type SessionState, storedFormOf } from '#domain';
import { allowFanOut, type DataKey, engineOf, type EventStore, queryAcrossSessions, sealSnapshotText } from '#event-store';
import type { DataKeySource } from '../session-index/session-index.projector.js';
import { toDomainEvent } from '../session-views.js';
import { SNAPSHOT_SCHEMA_VERSION } from '../snapshot-store.js';
import type { RebuildTracker } from './rebuild-progress.js';
import { createShadowTable, swapTables } from './table-swap.js';

export const SESSION_SNAPSHOTS = 'session_snapshots';
const NEXT = `${SESSION_SNAPSHOTS}_next`;

export interface SnapshotRebuildContext {
  readonly pool: pg.Pool;
  readonly store: EventStore;
  readonly client: pg.PoolClient;
  readonly tracker: RebuildTracker;
  readonly pageSize: number;
  readonly beforeSwap?: () => Promise<void>;
  /** The sessions' data keys: a rebuilt snapshot is sealed with its session's, as `SnapshotStore.save` seals it. */
  readonly keys?: DataKeySource | null;
}

/**
 * Blue/green rebuild of `session_snapshots`: every stored (stream, version) is folded again from the events,
 * whatever schema version it was written with, into `session_snapshots_next` (sealed with the session's data key,
 * as a live snapshot is: a snapshot holds the transcript), then the tables swap in one
 * short transaction. Snapshots are only a shortcut for reads, so one taken by a live replica during the
 * rebuild is simply left behind (the next one comes `snapshotEvery` events later).
 */
export async function rebuildSessionSnapshots(context: SnapshotRebuildContext): Promise<number> {
  const { client, pool, store, tracker } = context;
  const engine = await engineOf(pool);
  await createShadowTable(client, SESSION_SNAPSHOTS, NEXT, engine);
  // What the fill below replays: each stream's events up to its last snapshot.
  const planned = await queryAcrossSessions(pool, {
    text: `SELECT coalesce(sum(last), 0)::float8 AS events FROM (SELECT max(version) AS last FROM ${SESSION_SNAPSHOTS} GROUP BY stream_id) AS s`,
  });
  tracker.eventsToReplay = Number(planned.rows[0].events);
  let after = '';
  for (;;) {
    const page = await queryAcrossSessions(pool, {
      text: `SELECT stream_id, array_agg(version::text ORDER BY version) AS versions FROM ${SESSION_SNAPSHOTS}
        WHERE stream_id > $1 GROUP BY stream_id ORDER BY stream_id LIMIT $2`,
      values: [after, context.pageSize],
    });
    // One key store query a page; a session without a key (written before sealing, or with sealing off) stays plain.
    const keys = context.keys ? await context.keys.keysFor(page.rows.map((row) => String(row.stream_id))) : new Map<string, DataKey>();
    for (const row of page.rows) {
      const streamId = String(row.stream_id);
      const key = keys.get(streamId)?.key ?? null;
      const versions = (row.versions as string[]).map(Number);
      const events = await store.readStream(streamId, { to: versions.at(-1) });
      let state: SessionState = initialSessionState();
      let done = 0;
      for (const version of versions.filter((v) => v <= events.length)) {
        state = evolveAll(state, events.slice(done, version).map(toDomainEvent));
        done = version;
        await client.query(
          `INSERT INTO ${NEXT} (stream_id, version, schema_version, state) VALUES ($1, $2, $3, $4::json)`,
          [streamId, version, SNAPSHOT_SCHEMA_VERSION, sealSnapshotText(key, streamId, JSON.stringify(storedFormOf(state)))],
        );
        tracker.rows += 1;
      }
      tracker.eventsReplayed += done;
    }
    tracker.report();
    if (page.rows.length < context.pageSize) break;
    after = String(page.rows[page.rows.length - 1].stream_id);
  }
  await context.beforeSwap?.();
  tracker.report('swap');
  await client.query('BEGIN');
  try {
    await allowFanOut(client, engine);
    await client.query(`SET LOCAL lock_timeout = '5s'`);
    await swapTables(client, SESSION_SNAPSHOTS, NEXT);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  return tracker.rows;
}
