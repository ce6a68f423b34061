import type pg from 'pg';
import type { SessionState } from '#domain';
import type { AttemptedAppend, InlineProjection, SealingContext } from '#event-store';
import { sealSummaryContent } from '../read-model-content.js';
import { summaryRowOf } from './summary-row.builder.js';

/**
 * What the session writer hands the event store with each append: the fold state after it (and, added by the
 * sealing store, the session's data key, which seals the row's title and pending prompt).
 */
export interface SessionAppendContext extends SealingContext {
  readonly state: SessionState;
}

const isSessionAppend = (append: AttemptedAppend): append is AttemptedAppend & { context: SessionAppendContext } =>
  typeof append.context === 'object' && append.context !== null && 'state' in append.context;

/** The summary row an append writes (its content sealed with the session's key), or null for a stream that is not a session's. */
const storedRowOf = (append: AttemptedAppend) =>
  isSessionAppend(append)
    ? sealSummaryContent(append.context.dataKey ?? null, append.streamId, summaryRowOf(append.context.state, append.context.state.version))
    : null;

const rowOf = (append: AttemptedAppend): string | null => {
  const row = storedRowOf(append);
  return row === null ? null : JSON.stringify(row);
};

/**
 * `session_summaries`, written inline: one small row per session, built from the state the writer already
 * evolved (the same cost on any session length), with what the recovery supervisor looks up (`pending`: a turn
 * waits; `parent_session_id`: a continuation exists) in columns of their own. Fused into the append statement on
 * one server (one row for each session the batch appended to, the newest append of a stream winning, at the
 * version it reached, from `appended`); on Citus the routed append runs the same upsert for each append, on the
 * stream's own shard. `updated_at` takes the inserted row's default: Citus refuses `now()` in DO UPDATE SET.
 */
export const sessionSummaryProjection: InlineProjection<pg.ClientBase> = {
  name: 'session_summaries',
  fused: {
    text: `INSERT INTO session_summaries (stream_id, version, data, pending, parent_session_id)
           SELECT DISTINCT ON (a.stream_id) a.stream_id, a.version, s.data::jsonb || jsonb_build_object('version', a.version),
                  coalesce(json_typeof(s.data -> 'pendingTurn') = 'object', false), s.data ->> 'parentSessionId'
             FROM appended a JOIN json_array_elements($1::json) WITH ORDINALITY AS s(data, item) ON s.item = a.item
            WHERE json_typeof(s.data) = 'object'
            ORDER BY a.stream_id, a.version DESC
           ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, data = EXCLUDED.data, pending = EXCLUDED.pending,
             parent_session_id = EXCLUDED.parent_session_id, updated_at = EXCLUDED.updated_at
           RETURNING 1`,
    valueCount: 1,
    // One JSON array, an entry per append (null for a stream that is not a session's): pg would escape a text[]
    // element by element.
    values: (attempted) => [`[${attempted.map((append) => rowOf(append) ?? 'null').join(',')}]`],
  },
  routed: {
    table: 'session_summaries',
    text: `INSERT INTO %s (stream_id, version, data, pending, parent_session_id)
           VALUES ($1, $2, $3::jsonb || jsonb_build_object('version', $2), coalesce(json_typeof($3 -> 'pendingTurn') = 'object', false),
                   $3 ->> 'parentSessionId')
           ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, data = EXCLUDED.data, pending = EXCLUDED.pending,
             parent_session_id = EXCLUDED.parent_session_id, updated_at = EXCLUDED.updated_at`,
    value: storedRowOf,
  },
};
