import { readFileSync } from 'node:fs';
import initSqlJs from 'sql.js';
import type { StateRow } from '#domain';

/** Where a state.db comes from: a path on disk (opened read-only) or the bytes of an upload. */
export type StateDbInput = { readonly path: string } | { readonly bytes: Buffer };

const OPTIONAL_TEXT: readonly (readonly [string, keyof StateRow])[] = [
  ['tool_call_id', 'toolCallId'],
  ['tool_name', 'toolName'],
  ['reasoning', 'reasoning'],
  ['api_content', 'apiContent'],
];

type Column = string;
type SqlRow = { readonly [column: Column]: unknown };

const present = (value: unknown): boolean => value !== null && value !== undefined && value !== '';

function parsedJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/**
 * One `messages` row as a StateRow (reference §1.3): `rowId` = `id`; NULL or empty optional columns left out;
 * JSON columns parsed (`tool_calls` → `toolCalls`); `active = 0` → `active: false` (compacted history, which the
 * projection leaves out but keeps on record). Columns the contract has no field for are not carried.
 */
function stateRowOf(sql: SqlRow): StateRow {
  const row: Record<string, unknown> = { rowId: Number(sql['row_id']), role: sql['role'] };
  if (present(sql['content'])) row['content'] = String(sql['content']);
  if (typeof sql['timestamp'] === 'number' && Number.isFinite(sql['timestamp'])) row['timestamp'] = sql['timestamp'];
  for (const [column, field] of OPTIONAL_TEXT) if (present(sql[column])) row[field] = String(sql[column]);
  const toolCalls = present(sql['tool_calls']) ? parsedJson(sql['tool_calls']) : undefined;
  if (Array.isArray(toolCalls) && toolCalls.length > 0) row['toolCalls'] = toolCalls;
  if (sql['active'] === 0 || sql['active'] === false || sql['active'] === '0') row['active'] = false;
  return row as unknown as StateRow;
}

/** SQLite compiled to WebAssembly (sql.js): nothing to compile at install, the same file format. Loaded once. */
let sqlite: ReturnType<typeof initSqlJs> | null = null;
const loadSqlite = () => (sqlite ??= initSqlJs());

/**
 * Reads the agent store's `messages` table, grouped by session, each session's rows ordered by `id` (older
 * schemas without an `id` column: by SQLite's rowid, which is the insertion order). Throws with a readable
 * message when the input is not an SQLite database or has no `messages` table. The file is read whole (the
 * agent store of one install; an upload arrives whole anyway).
 */
export async function readStateDb(input: StateDbInput): Promise<Map<string, StateRow[]>> {
  const bytes = 'path' in input ? readFileSync(input.path) : input.bytes;
  const SQL = await loadSqlite();
  const db = new SQL.Database(bytes);
  try {
    const info = db.exec('PRAGMA table_info(messages)')[0];
    const nameAt = info?.columns.indexOf('name') ?? -1;
    const columns = new Set((info?.values ?? []).map((row) => String(row[nameAt])));
    if (columns.size === 0) throw new Error('has no messages table');
    for (const required of ['session_id', 'role']) if (!columns.has(required)) throw new Error(`messages has no ${required} column`);
    const rowId = columns.has('id') ? 'id' : 'rowid';
    const wanted = ['session_id', 'role', 'content', 'timestamp', 'tool_calls', 'active', ...OPTIONAL_TEXT.map(([column]) => column)];
    const select = [`${rowId} AS row_id`, ...wanted.filter((column) => columns.has(column))].join(', ');
    const bySession = new Map<string, StateRow[]>();
    const statement = db.prepare(`SELECT ${select} FROM messages ORDER BY ${rowId}`);
    try {
      while (statement.step()) {
        const sql = statement.getAsObject() as SqlRow;
        const sessionId = String(sql['session_id']);
        let rows = bySession.get(sessionId);
        if (rows === undefined) bySession.set(sessionId, (rows = []));
        rows.push(stateRowOf(sql));
      }
    } finally {
      statement.free();
    }
    return bySession;
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(/not a database|malformed/i.test(message) ? `not an SQLite database (${message})` : message, { cause: error });
  } finally {
    db.close();
  }
}
