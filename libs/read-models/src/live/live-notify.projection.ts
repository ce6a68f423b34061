import type pg from 'pg';
import type { InlineProjection } from '#event-store';

/** LISTEN/NOTIFY channel of appended sessions (`<streamId> <version>`), for the live feeds of every replica. */
export const NOTIFY_CHANNEL = 'chronicle_session_appended';

/**
 * The notice an erasure sends on the same channel once the session's key is destroyed (`<streamId> <version>
 * erased`): every replica drops what it holds of the session (its key, states, views, answers, a snapshot waiting
 * to be written) without waiting for a read of it to fold the erasure.
 */
export const erasureNotice = (streamId: string, version: number): string => `${streamId} ${version} erased`;

/** A payload of the channel read back: an append's (`<streamId> <version>`) or an erasure's notice. */
export function parseNotification(payload: string): { streamId: string; version: number; erased: boolean } {
  const [streamId = '', version, what] = payload.split(' ');
  return { streamId, version: Number(version), erased: what === 'erased' };
}

/**
 * Tells other replicas' live feeds `<streamId> <version>` for every append of a group commit, from inside the
 * append statement: PostgreSQL delivers the notifications at the commit, and never for a rolled-back one.
 * Only the appends the statement made are announced (`appended`). On Citus the routed append notifies on the
 * worker that ran it: the live hub listens on every node.
 */
export const liveNotifyProjection: InlineProjection<pg.ClientBase> = {
  name: 'live_notify',
  fused: {
    text: `SELECT count(pg_notify($1, a.stream_id || ' ' || a.version)) FROM appended a`,
    valueCount: 1,
    values: () => [NOTIFY_CHANNEL],
  },
  routed: {
    table: null,
    text: `SELECT pg_notify('${NOTIFY_CHANNEL}', $1 || ' ' || $2)`,
    value: () => true,
  },
};
