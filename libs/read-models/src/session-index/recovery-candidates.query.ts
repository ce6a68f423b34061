import type pg from 'pg';
import { fromSessionStreamId } from '#domain';
import { SESSION_INDEX } from './session-index.projector.js';

/** Events the async index has not projected yet: after its checkpoint in (transaction id, position) order. */
const TAIL = `
  WITH cp AS (
    SELECT COALESCE((SELECT transaction_id FROM projection_checkpoints WHERE name = $1), '0'::xid8) AS tx,
           COALESCE((SELECT global_position FROM projection_checkpoints WHERE name = $1), 0) AS pos
  )
  SELECT e.stream_id, e.type, e.data FROM events e, cp WHERE (e.transaction_id, e.global_position) > (cp.tx, cp.pos)`;

/**
 * The sessions a sweep examines: `session_index` rows in status `pending` (a turn waits) or `recovering`
 * (a marker waits for its journal), plus every session with an event the async index has not projected
 * yet, so a turn submitted a moment ago is never missed because of projector lag. The fold of each
 * candidate then decides; the index only narrows the search.
 *
 * Both sources are read by ONE statement, so they come from one snapshot. The projector commits an index
 * row together with the checkpoint that moves its events out of the tail; two statements (READ COMMITTED)
 * could see neither — the index before that commit and the tail after it — and miss the session for a
 * sweep (defect D5 in test/reference-scenarios.md).
 */
export async function findRecoveryCandidates(pool: pg.Pool): Promise<string[]> {
  const result = await pool.query(
    `SELECT 'session' AS kind, session_id AS id FROM ${SESSION_INDEX}
      WHERE status IN ('pending', 'recovering') AND NOT archived
     UNION
     SELECT 'stream', t.stream_id FROM (${TAIL}) t`,
    [SESSION_INDEX],
  );
  const ids = new Set<string>();
  for (const row of result.rows) {
    const sessionId = row.kind === 'session' ? String(row.id) : fromSessionStreamId(String(row.id));
    if (sessionId) ids.add(sessionId);
  }
  return [...ids].sort();
}

/**
 * Which of `sessionIds` another session names as its parent (a continuation exists, reference §4.2 gate 2):
 * from the index and from `SessionStarted` events it has not projected yet.
 */
export async function findContinuedSessions(pool: pg.Pool, sessionIds: readonly string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const result = await pool.query(
    `SELECT parent_session_id AS parent FROM ${SESSION_INDEX}
      WHERE parent_session_id = ANY($2::text[]) AND session_id <> parent_session_id
     UNION
     SELECT t.data->>'parentSessionId' FROM (${TAIL}) t
      WHERE t.type = 'SessionStarted' AND t.data->>'parentSessionId' = ANY($2::text[])`,
    [SESSION_INDEX, sessionIds],
  );
  return new Set(result.rows.map((row) => String(row.parent)));
}
