import type pg from 'pg';
import { type EventStore, lockConnection } from '#event-store';
import { type DataKeySource, SESSION_INDEX } from '../session-index/session-index.projector.js';
import { type RebuildProgress, RebuildTracker } from './rebuild-progress.js';
import { rebuildSessionIndex } from './session-index.rebuild.js';
import { rebuildSessionSnapshots, SESSION_SNAPSHOTS } from './session-snapshots.rebuild.js';

export const REBUILDABLE_PROJECTIONS = [SESSION_INDEX, SESSION_SNAPSHOTS] as const;
export type RebuildableProjection = (typeof REBUILDABLE_PROJECTIONS)[number];

/** Advisory lock class of rebuilds; the object id is `hashtext(name)`, so two projections rebuild side by side. */
const REBUILD_LOCK_CLASS = 727_102;

export interface RebuildDeps {
  readonly pool: pg.Pool;
  readonly store: EventStore;
  /** The sessions' data keys: rebuilt index rows store their title and pending prompt sealed (none: plain). */
  readonly keys?: DataKeySource | null;
}

export interface RebuildOptions {
  /** Events (index) or streams (snapshots) per page (default 500). */
  readonly pageSize?: number;
  readonly onProgress?: (progress: RebuildProgress) => void;
  /** Runs after the fill, before the swap transaction. Only for tests that hold a rebuild half-way. */
  readonly beforeSwap?: () => Promise<void>;
}

export interface RebuildResult {
  readonly name: RebuildableProjection;
  /** Rows in the table now live. */
  readonly rows: number;
  readonly eventsReplayed: number;
  readonly seconds: number;
}

export class ProjectionNotFoundError extends Error {
  readonly code = 'PROJECTION_NOT_FOUND';
  constructor(readonly projection: string) {
    super(`There is no projection named "${projection}"; rebuildable: ${REBUILDABLE_PROJECTIONS.join(', ')}.`);
    this.name = 'ProjectionNotFoundError';
  }
}

export class RebuildInProgressError extends Error {
  readonly code = 'REBUILD_IN_PROGRESS';
  constructor(readonly projection: string) {
    super(`A rebuild of ${projection} is already running (on this or another replica); try again when it is done.`);
    this.name = 'RebuildInProgressError';
  }
}

export const isRebuildable = (name: string): name is RebuildableProjection =>
  (REBUILDABLE_PROJECTIONS as readonly string[]).includes(name);

/**
 * Rebuilds a read model from the log beside the live one and swaps it in atomically. One rebuild per
 * projection at a time across replicas: a second caller fails fast with `REBUILD_IN_PROGRESS` rather than
 * waiting to redo the same work.
 */
export async function rebuildProjection(deps: RebuildDeps, name: string, options: RebuildOptions = {}): Promise<RebuildResult> {
  if (!isRebuildable(name)) throw new ProjectionNotFoundError(name);
  // On Citus, on the coordinator: its lock holds across the cluster, and only there can a table be distributed.
  const client = await lockConnection(deps.pool);
  let failed = false;
  try {
    const lock = await client.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [REBUILD_LOCK_CLASS, name]);
    if (!lock.rows[0].ok) throw new RebuildInProgressError(name);
    try {
      const tracker = new RebuildTracker(name, options.onProgress);
      const context = { ...deps, client, tracker, pageSize: options.pageSize ?? 500, beforeSwap: options.beforeSwap };
      const rows = name === SESSION_INDEX ? await rebuildSessionIndex(context) : await rebuildSessionSnapshots(context);
      tracker.report('done');
      return { name, rows, eventsReplayed: tracker.eventsReplayed, seconds: tracker.seconds() };
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      if (!failed) await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [REBUILD_LOCK_CLASS, name]);
    }
  } finally {
    // After a failure the connection may sit in a transaction: end it, which also frees the session lock.
    client.release(failed);
  }
}
