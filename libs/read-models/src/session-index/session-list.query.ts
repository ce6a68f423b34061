import type pg from 'pg';
import { queryAcrossSessions } from '#event-store';

export const SESSION_STATUSES = ['pending', 'recovering', 'interrupted', 'archived', 'active'] as const;

export interface SessionListQuery {
  readonly status?: (typeof SESSION_STATUSES)[number];
  readonly q?: string;
  readonly limit: number;
  readonly cursor?: string;
}

/** A `cursor` this service did not hand out: the caller's fault (400). */
export class InvalidCursorError extends Error {
  readonly code = 'VALIDATION_FAILED';
  readonly errors = [{ path: 'query.cursor', message: 'unknown cursor' }];
  constructor() {
    super('The cursor is not one this service handed out.');
    this.name = 'InvalidCursorError';
  }
}

interface Cursor {
  readonly at: number;
  readonly id: string;
}

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

function decodeCursor(raw: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (typeof value?.at === 'number' && typeof value?.id === 'string') return value;
  } catch {
    // fall through to the problem below
  }
  throw new InvalidCursorError();
}

/**
 * The contract's SessionSummary per item (as `GET /v1/sessions/{id}` answers it, folded at the row's version).
 * Newest activity first, keyset-paginated on (last_activity_at, session_id), from the async session index
 * (eventually consistent: it trails the log by one projector pass). On Citus a list reads every shard.
 */
export async function listSessions(pool: pg.Pool, query: SessionListQuery) {
  const params: unknown[] = [];
  const where: string[] = [];
  if (query.status) {
    params.push(query.status);
    where.push(`status = $${params.length}`);
  }
  if (query.q) {
    params.push(`%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(title ILIKE $${params.length} OR session_id ILIKE $${params.length})`);
  }
  if (query.cursor) {
    const cursor = decodeCursor(query.cursor);
    params.push(cursor.at, cursor.id);
    where.push(`(COALESCE(last_activity_at, 0), session_id) < ($${params.length - 1}, $${params.length})`);
  }
  params.push(query.limit + 1);
  const result = await queryAcrossSessions(pool, {
    text: `SELECT session_id, title, parent_session_id, status, archived, version::text, created_at, last_activity_at,
                  message_count, pending_turn, markers
             FROM session_index ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
            ORDER BY COALESCE(last_activity_at, 0) DESC, session_id DESC
            LIMIT $${params.length}`,
    values: params,
  });
  const rows = result.rows.slice(0, query.limit);
  const last = rows.at(-1);
  return {
    items: rows.map((row) => ({
      sessionId: row.session_id,
      title: row.title,
      parentSessionId: row.parent_session_id,
      archived: row.archived,
      version: Number(row.version),
      createdAt: row.created_at,
      lastActivityAt: row.last_activity_at,
      messageCount: row.message_count,
      status: row.status,
      pendingTurn: row.pending_turn,
      markers: row.markers,
    })),
    nextCursor:
      result.rows.length > query.limit && last
        ? encodeCursor({ at: last.last_activity_at ?? 0, id: last.session_id })
        : null,
  };
}
