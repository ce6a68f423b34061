import type pg from 'pg';
import type { InlineProjection } from '#event-store';
import { NOTIFY_CHANNEL } from './live.constants.js';

/**
 * Tells other replicas' live feeds `<streamId> <version>` for every append of a group commit, from inside the
 * append statement: PostgreSQL delivers the notifications at the commit, and never for a rolled-back one.
 * Only the appends the statement made are announced (`appended`).
 */
export const liveNotifyProjection: InlineProjection<pg.ClientBase> = {
  name: 'live_notify',
  fused: {
    text: `SELECT count(pg_notify($1, a.stream_id || ' ' || a.version)) FROM appended a`,
    valueCount: 1,
    values: () => [NOTIFY_CHANNEL],
  },
};
