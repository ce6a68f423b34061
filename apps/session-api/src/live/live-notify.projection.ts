import type pg from 'pg';
import { type InlineProjection, writtenInThisTransaction } from '#event-store';
import { NOTIFY_CHANNEL } from './live.constants.js';

const NOTIFY = {
  name: 'chronicle_notify_appended_guarded',
  text: `SELECT count(pg_notify($1, t.stream_id || ' ' || t.version)) FROM unnest($2::text[], $3::bigint[]) AS t(stream_id, version)
          WHERE ${writtenInThisTransaction('t.stream_id', 't.version')}`,
};

/**
 * Tells other replicas' live feeds `<streamId> <version>` for every append of a group commit, from inside its
 * transaction: PostgreSQL delivers the notifications at the commit, and never for a rolled-back one. Guarded:
 * only the appends this transaction made are announced.
 */
export const liveNotifyProjection: InlineProjection<pg.ClientBase> = {
  name: 'live_notify',
  guarded: true,
  statements: (appended) => [{ ...NOTIFY, values: [NOTIFY_CHANNEL, appended.map((a) => a.streamId), appended.map((a) => a.version)] }],
};
