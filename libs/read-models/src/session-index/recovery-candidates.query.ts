import type pg from 'pg';
import { fromSessionStreamId, SESSION_STREAM_PREFIX } from '#domain';
import { type EventStore, queryAcrossSessions } from '#event-store';
import { readCheckpoint } from '../projection-checkpoints.js';
import { SESSION_INDEX } from './session-index.projector.js';

/** Events of the index's tail read per sweep at most (the rest is read by the next sweeps). */
const TAIL_LIMIT = 10_000;

/**
 * The sessions a sweep examines: every session with a turn waiting (`session_summaries.pending`, written by the
 * append that submitted the turn, so a turn submitted a moment ago is never missed), every session whose
 * `session_index` status is `recovering` (a marker waits for its journal), and every session with events the
 * index has not projected yet (its tail, so a marker made a moment ago is not missed because of the projector's
 * lag). The tail is read before the index: a session the projector moves out of the tail in between is in the
 * index rows read after it, with no single snapshot needed (on Citus there is none across shards). The fold of
 * each candidate then decides; these only narrow the search.
 */
export async function findRecoveryCandidates(pool: pg.Pool, store: Pick<EventStore, 'readPositions'>): Promise<string[]> {
  const { positions } = await store.readPositions({ after: await readCheckpoint(pool, SESSION_INDEX), limit: TAIL_LIMIT });
  const result = await queryAcrossSessions(pool, {
    text: `SELECT stream_id FROM session_summaries WHERE pending AND (data ->> 'archived') IS DISTINCT FROM 'true'
           UNION
           SELECT stream_id FROM ${SESSION_INDEX} WHERE status = 'recovering' AND NOT archived`,
  });
  const ids = new Set<string>();
  for (const streamId of [...positions.map((p) => p.streamId), ...result.rows.map((row) => String(row.stream_id))]) {
    const sessionId = fromSessionStreamId(streamId);
    if (sessionId) ids.add(sessionId);
  }
  return [...ids].sort();
}

/**
 * Which of `sessionIds` another session names as its parent (a continuation exists, reference §4.2 gate 2):
 * from the inline summaries, written by the append that started the child.
 */
export async function findContinuedSessions(pool: pg.Pool, sessionIds: readonly string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const result = await queryAcrossSessions(pool, {
    text: `SELECT DISTINCT parent_session_id AS parent FROM session_summaries
            WHERE parent_session_id = ANY($1::text[]) AND stream_id <> $2 || parent_session_id`,
    values: [sessionIds, SESSION_STREAM_PREFIX],
  });
  return new Set(result.rows.map((row) => String(row.parent)));
}
