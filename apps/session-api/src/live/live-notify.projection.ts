import type pg from 'pg';
import type { InlineProjection } from '#event-store';
import { NOTIFY_CHANNEL } from './live.constants.js';

const NOTIFY = {
  name: 'chronicle_notify_appended',
  text: 'SELECT count(pg_notify($1, x)) FROM unnest($2::text[]) AS x',
};

/**
 * Tells other replicas' live feeds `<streamId> <version>` for every append of a group commit, from inside its
 * transaction: PostgreSQL delivers the notifications at the commit, and never for a rolled-back one.
 */
export const liveNotifyProjection: InlineProjection<pg.ClientBase> = {
  name: 'live_notify',
  statements: (appended) => [{ ...NOTIFY, values: [NOTIFY_CHANNEL, appended.map((a) => `${a.streamId} ${a.version}`)] }],
};
