import type pg from 'pg';
import type { SessionState } from '#domain';
import type { AppendedStream, InlineProjection } from '#event-store';
import { summaryRowOf } from './summary-row.builder.js';

/** What the session writer hands the event store with each append: the fold state after it. */
export interface SessionAppendContext {
  readonly state: SessionState;
}

const isSessionAppend = (append: AppendedStream): append is AppendedStream & { context: SessionAppendContext } =>
  typeof append.context === 'object' && append.context !== null && 'state' in append.context;

const UPSERT_SUMMARIES = {
  name: 'chronicle_upsert_session_summaries',
  text: `INSERT INTO session_summaries (stream_id, version, data)
         SELECT t.stream_id, t.version, t.data::jsonb FROM unnest($1::text[], $2::bigint[], $3::text[]) AS t(stream_id, version, data)
         ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, data = EXCLUDED.data, updated_at = now()`,
};

/**
 * `session_summaries`, written inline: one small row per session, built from the state the writer already
 * evolved (the same cost on any session length), one statement for every session of a group commit.
 */
export const sessionSummaryProjection: InlineProjection<pg.ClientBase> = {
  name: 'session_summaries',
  statements(appended) {
    // A statement may touch a row once: of one stream's appends in the batch, the last (newest) wins.
    const latest = new Map<string, { version: number; data: string }>();
    for (const append of appended) {
      if (!isSessionAppend(append)) continue;
      latest.set(append.streamId, {
        version: append.version,
        data: JSON.stringify(summaryRowOf(append.context.state, append.version)),
      });
    }
    if (latest.size === 0) return [];
    const ids = [...latest.keys()];
    return [{ ...UPSERT_SUMMARIES, values: [ids, ids.map((id) => latest.get(id)?.version), ids.map((id) => latest.get(id)?.data)] }];
  },
};
