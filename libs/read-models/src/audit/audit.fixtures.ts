import type pg from 'pg';
import { type SessionEvent, toSessionStreamId } from '#domain';
import type { EventStore } from '#event-store';
import { SessionWriter } from '#session-commands';
import { SessionViews } from '../session-views.js';
import { SnapshotStore } from '../snapshot-store.js';

/** Given-helpers for the audit and rebuild integration tests: sessions written through the real writer. */
export const T0 = 1_800_000_000;
export const SNAPSHOT_EVERY = 3;

export const newViews = (store: EventStore, pool: pg.Pool) =>
  new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: SNAPSHOT_EVERY });

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

/** A session of `1 + exchanges` events, one append each, as the HTTP routes would write it. */
export async function writeSession(writer: SessionWriter, sessionId: string, exchanges: number): Promise<void> {
  await writer.write(sessionId, () => ({ events: [startedEvent(sessionId, `Session ${sessionId}`)] }), { creates: true });
  for (let n = 1; n <= exchanges; n += 1) await writer.write(sessionId, () => ({ events: [exchange(n)] }));
}

export const newWriter = (store: EventStore, views: SessionViews) => new SessionWriter(store, views);

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
