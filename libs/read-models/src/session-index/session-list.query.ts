import type pg from 'pg';
import { type MarkerCounts, SESSION_STATUSES } from '#domain';
import { type DataKey, queryAcrossSessions } from '#event-store';
import { openRowContent } from '../read-model-content.js';
import type { IndexPendingTurn } from './index-row.builder.js';
import type { DataKeySource } from './session-index.projector.js';

/** The statuses a list filters by and a summary carries: the domain's (`summarize`), `erased` included. */
export { SESSION_STATUSES };

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

/** Rows a search reads at most per page when titles are sealed: past it the page ends early, its `nextCursor` goes on from there. */
export const SEARCH_SCAN_LIMIT = 5_000;
/** Rows read per query while a search over sealed titles fills its page. */
const SEARCH_CHUNK = 500;

const COLUMNS = `stream_id, session_id, title, parent_session_id, status, archived, version::text, created_at, last_activity_at,
                  message_count, pending_turn, markers, sealed`;

/**
 * The contract's SessionSummary per item (as `GET /v1/sessions/{id}` answers it, folded at the row's version).
 * Newest activity first, keyset-paginated on (last_activity_at, session_id), from the async session index
 * (eventually consistent: it trails the log by one projector pass). On Citus a list reads every shard.
 *
 * With `keys` (content sealed at rest) each row's title and pending prompt are opened with its session's data
 * key. A search (`q`) cannot then match a sealed title in SQL: the rows are read in list order, a chunk at a
 * time, and matched here once opened (case-insensitively, as ILIKE); a page reads at most `SEARCH_SCAN_LIMIT`
 * rows, and one that stops there holds the matches found so far (possibly none) and a `nextCursor` past the last
 * row it read. Rows stored plain (written before sealing, or with it off) are matched in SQL as before.
 */
export async function listSessions(
  pool: pg.Pool,
  query: SessionListQuery,
  keys: DataKeySource | null = null,
  { scanLimit = SEARCH_SCAN_LIMIT, chunkSize = SEARCH_CHUNK }: { readonly scanLimit?: number; readonly chunkSize?: number } = {},
) {
  const params: unknown[] = [];
  const where: string[] = [];
  if (query.status) {
    params.push(query.status);
    where.push(`status = $${params.length}`);
  }
  const needle = query.q ? query.q.toLowerCase() : null;
  if (query.q) {
    params.push(`%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const plain = `title ILIKE $${params.length} OR session_id ILIKE $${params.length}`;
    where.push(keys ? `(sealed IS NOT NULL OR ${plain})` : `(${plain})`);
  }
  const searching = needle !== null && keys !== null;
  const found: IndexListRow[] = [];
  let after: Cursor | null = query.cursor ? decodeCursor(query.cursor) : null;
  let scanned = 0;
  for (;;) {
    const values = [...params];
    const clauses = [...where];
    if (after) {
      values.push(after.at, after.id);
      clauses.push(`(COALESCE(last_activity_at, 0), session_id) < ($${values.length - 1}, $${values.length})`);
    }
    // A search reads one row past its chunk, so a page that stops at the scan limit knows whether it was the end.
    const chunk = searching ? Math.min(chunkSize, scanLimit - scanned) : query.limit + 1 - found.length;
    values.push(searching ? chunk + 1 : chunk);
    const result = await queryAcrossSessions(pool, {
      text: `SELECT ${COLUMNS}
               FROM session_index ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''}
              ORDER BY COALESCE(last_activity_at, 0) DESC, session_id DESC
              LIMIT $${values.length}`,
      values,
    });
    const ended = result.rows.length <= (searching ? chunk : chunk - 1);
    const stored = (result.rows as IndexListRow[]).slice(0, chunk);
    const rows = await opened(keys, stored);
    for (const [i, row] of rows.entries()) {
      scanned += 1;
      after = cursorOf(row);
      // A plain row matched in SQL (ILIKE, the database's case folding); a sealed one only here, once opened.
      if (!searching || stored[i]!.sealed === null || matches(row, needle)) found.push(row);
      if (found.length > query.limit) break;
    }
    // Not searching sealed titles: one query said everything (limit + 1 rows, or fewer: the end).
    if (!searching || found.length > query.limit || ended) break;
    if (scanned >= scanLimit) {
      // The page ends early: the caller goes on from the last row read.
      return { items: found.map(toItem), nextCursor: after ? encodeCursor(after) : null };
    }
  }
  const items = found.slice(0, query.limit);
  const last = items.at(-1);
  return { items: items.map(toItem), nextCursor: found.length > query.limit && last ? encodeCursor(cursorOf(last)) : null };
}

interface IndexListRow {
  readonly stream_id: string;
  readonly session_id: string;
  readonly title: string | null;
  readonly parent_session_id: string | null;
  readonly status: string;
  readonly archived: boolean;
  readonly version: string;
  readonly created_at: number | null;
  readonly last_activity_at: number | null;
  readonly message_count: number;
  readonly pending_turn: IndexPendingTurn | null;
  readonly markers: MarkerCounts;
  readonly sealed: string | null;
}

const cursorOf = (row: IndexListRow): Cursor => ({ at: row.last_activity_at ?? 0, id: row.session_id });

const matches = (row: IndexListRow, needle: string): boolean =>
  row.session_id.toLowerCase().includes(needle) || (row.title !== null && row.title.toLowerCase().includes(needle));

/** The rows with their sealed title and pending prompt opened (one key store query for the keys not cached). */
async function opened(keys: DataKeySource | null, rows: readonly IndexListRow[]): Promise<IndexListRow[]> {
  const sealed = rows.filter((row) => row.sealed !== null);
  if (sealed.length === 0) return [...rows];
  const found = keys ? await keys.keysFor(sealed.map((row) => row.stream_id)) : new Map<string, DataKey>();
  return rows.map((row) => {
    if (row.sealed === null) return row;
    const open = openRowContent(found.get(row.stream_id)?.key ?? null, row.stream_id, 'index', {
      title: row.title,
      pendingTurn: row.pending_turn,
      sealed: row.sealed,
    });
    return { ...row, title: open.title, pending_turn: open.pendingTurn, sealed: null };
  });
}

const toItem = (row: IndexListRow) => ({
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
});
