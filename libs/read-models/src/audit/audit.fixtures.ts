import type pg from 'pg';
import { evolveAll, type SessionEvent, toSessionStreamId } from '#domain';
import type { EventStore } from '#event-store';
import type { SessionAppendContext } from '../session-summary/session-summary.projection.js';
import { SessionViews } from '../session-views.js';
import { SnapshotStore } from '../snapshot-store.js';

/**
 * Given-helpers for the audit and rebuild integration tests. Sessions are appended as the service appends them
 * (the fold state handed to the inline projections, the views told the new state), from events given here:
 * read-models sits below the command side, so these tests state the events instead of deciding them.
 */
export const T0 = 1_800_000_000;
export const SNAPSHOT_EVERY = 3;

/**
 * No idle snapshots: a session an earlier test wrote would get one 2 s after it went quiet, in the middle of a
 * later test that counts the stored snapshots (seen on a loaded machine in the snapshot rebuild's test).
 */
export const newViews = (store: EventStore, pool: pg.Pool) =>
  new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: SNAPSHOT_EVERY, idleSnapshotMs: 0 });

export const startedEvent = (sessionId: string, title: string): SessionEvent => ({
  type: 'SessionStarted',
  data: { sessionId, title, parentSessionId: null, createdAt: T0 },
});

export const exchange = (n: number): SessionEvent => ({
  type: 'MessagesRecorded',
  data: {
    rows: [
      { role: 'user', content: `question ${n}`, timestamp: T0 + 2 * n },
      { role: 'assistant', content: `answer ${n}`, timestamp: T0 + 2 * n + 1 },
    ],
  },
});

/** Appends given events to sessions, one append per `write`, at the version it loaded. */
export class GivenEventsWriter {
  constructor(
    private readonly store: EventStore,
    private readonly views: SessionViews,
  ) {}

  async write(sessionId: string, given: () => { readonly events: readonly SessionEvent[] }, _options?: { creates?: boolean }): Promise<number> {
    const loaded = await this.views.loadLatest(sessionId);
    const { events } = given();
    const state = evolveAll(loaded.state, events);
    const result = await this.store.append(
      toSessionStreamId(sessionId),
      events.map((event) => ({ type: event.type, data: event.data })),
      { expectedVersion: loaded.version, context: { state } satisfies SessionAppendContext },
    );
    this.views.remember(sessionId, result.version, state);
    return result.version;
  }
}

/** A session of `1 + exchanges` events, one append each, as the HTTP routes would write it. */
export async function writeSession(writer: GivenEventsWriter, sessionId: string, exchanges: number): Promise<void> {
  await writer.write(sessionId, () => ({ events: [startedEvent(sessionId, `Session ${sessionId}`)] }), { creates: true });
  for (let n = 1; n <= exchanges; n += 1) await writer.write(sessionId, () => ({ events: [exchange(n)] }));
}

export const newWriter = (store: EventStore, views: SessionViews) => new GivenEventsWriter(store, views);

/** Snapshots are taken after the append answered: wait until the one at `version` is stored. */
export async function snapshotStored(pool: pg.Pool, sessionId: string, version: number): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    const found = await pool.query(`SELECT 1 FROM session_snapshots WHERE stream_id = $1 AND version = $2`, [
      toSessionStreamId(sessionId),
      version,
    ]);
    if (found.rowCount) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no snapshot of ${sessionId} at ${version}`);
}
