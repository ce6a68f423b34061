import type pg from 'pg';
import type { SessionState } from '#domain';
import type { AttemptedAppend, InlineProjection } from '#event-store';
import { summaryRowOf } from './summary-row.builder.js';

/** What the session writer hands the event store with each append: the fold state after it. */
export interface SessionAppendContext {
  readonly state: SessionState;
}

const isSessionAppend = (append: AttemptedAppend): append is AttemptedAppend & { context: SessionAppendContext } =>
  typeof append.context === 'object' && append.context !== null && 'state' in append.context;

/**
 * `session_summaries`, written inline: one small row per session, built from the state the writer already
 * evolved (the same cost on any session length), fused into the append statement: one row for each session
 * the batch appended to, the newest append of a stream winning. The row's `version` is the one the append
 * reached (from `appended`).
 */
export const sessionSummaryProjection: InlineProjection<pg.ClientBase> = {
  name: 'session_summaries',
  fused: {
    text: `INSERT INTO session_summaries (stream_id, version, data)
           SELECT DISTINCT ON (a.stream_id) a.stream_id, a.version, s.data::jsonb || jsonb_build_object('version', a.version)
             FROM appended a JOIN json_array_elements($1::json) WITH ORDINALITY AS s(data, item) ON s.item = a.item
            WHERE json_typeof(s.data) = 'object'
            ORDER BY a.stream_id, a.version DESC
           ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, data = EXCLUDED.data, updated_at = now()
           RETURNING 1`,
    valueCount: 1,
    // One JSON array, an entry per append (null for a stream that is not a session's): pg would escape a text[]
    // element by element.
    values: (attempted) => [
      `[${attempted.map((append) => (isSessionAppend(append) ? JSON.stringify(summaryRowOf(append.context.state, append.context.state.version)) : 'null')).join(',')}]`,
    ],
  },
};
