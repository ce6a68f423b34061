import type pg from 'pg';
import type { SessionState } from '#domain';
import { type AppendedStream, type InlineProjection, writtenInThisTransaction } from '#event-store';
import { summaryRowOf } from './summary-row.builder.js';

/** What the session writer hands the event store with each append: the fold state after it. */
export interface SessionAppendContext {
  readonly state: SessionState;
}

const isSessionAppend = (append: AppendedStream): append is AppendedStream & { context: SessionAppendContext } =>
  typeof append.context === 'object' && append.context !== null && 'state' in append.context;

const UPSERT_SUMMARIES = {
  name: 'chronicle_upsert_session_summaries_guarded',
  text: `INSERT INTO session_summaries (stream_id, version, data)
         SELECT DISTINCT ON (t.stream_id) t.stream_id, t.version, t.data::jsonb
           FROM ROWS FROM (unnest($1::text[]), unnest($2::bigint[]), json_array_elements($3::json)) AS t(stream_id, version, data)
          WHERE ${writtenInThisTransaction('t.stream_id', 't.version')}
          ORDER BY t.stream_id, t.version DESC
         ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, data = EXCLUDED.data, updated_at = now()`,
};

/**
 * `session_summaries`, written inline: one small row per session, built from the state the writer already
 * evolved (the same cost on any session length), one statement for every session of a group commit. Guarded:
 * a row is written only for an append this transaction made, and of one stream's appends the newest one
 * made wins, so the store may send it before it knows which appends of the batch succeed.
 */
export const sessionSummaryProjection: InlineProjection<pg.ClientBase> = {
  name: 'session_summaries',
  guarded: true,
  statements(appended) {
    const sessions = appended.filter(isSessionAppend);
    if (sessions.length === 0) return [];
    return [
      {
        ...UPSERT_SUMMARIES,
        values: [
          sessions.map((append) => append.streamId),
          sessions.map((append) => append.version),
          // One JSON array, not a text[]: pg escapes a text[] element by element (every quote of every row).
          `[${sessions.map((append) => JSON.stringify(summaryRowOf(append.context.state, append.version))).join(',')}]`,
        ],
      },
    ];
  },
};
