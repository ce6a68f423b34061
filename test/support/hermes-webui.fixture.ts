import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';

/**
 * Writes files the way hermes-webui and its agent leave them on disk (reference §1.1, §1.3, §1.4): sidecar
 * JSON per session, the agent's SQLite `state.db`, and one JSONL run journal per stream. Used by the import
 * tests and by `bench/import.bench.ts` (so it is built into dist/ too).
 */
export type HermesRow = { readonly role: string; readonly [key: string]: unknown };

export interface HermesLayout {
  readonly root: string;
  readonly sessions: string;
  readonly journals: string;
  readonly stateDb: string;
}

export function hermesLayout(root: string): HermesLayout {
  const sessions = join(root, 'sessions');
  const journals = join(sessions, '_run_journal');
  mkdirSync(journals, { recursive: true });
  return { root, sessions, journals, stateDb: join(root, 'state.db') };
}

/** A sidecar as `Session.save` writes it: metadata first, then the bodies; `fields` override or add. */
export function writeSidecar(layout: HermesLayout, sessionId: string, messages: readonly HermesRow[], fields: Record<string, unknown> = {}): void {
  const stamps = messages.map((m) => m['timestamp']).filter((t): t is number => typeof t === 'number');
  const createdAt = stamps.length > 0 ? Math.floor(stamps[0]) : 1_790_000_000;
  const sidecar = {
    session_id: sessionId,
    title: `Session ${sessionId}`,
    workspace: '/srv/app',
    created_workspace: '/srv/app',
    model: 'anthropic/claude-sonnet',
    model_provider: 'openrouter',
    created_at: createdAt,
    updated_at: (stamps.length > 0 ? stamps[stamps.length - 1] : createdAt) + 1,
    pinned: false,
    archived: false,
    project_id: null,
    profile: 'default',
    input_tokens: 1200,
    output_tokens: 340,
    estimated_cost: 0.0042,
    active_stream_id: null,
    pending_user_message: null,
    pending_attachments: [],
    pending_started_at: null,
    pending_user_source: null,
    truncation_watermark: null,
    truncation_boundary: null,
    message_count: messages.length,
    ...fields,
    messages,
    tool_calls: fields['tool_calls'] ?? [],
    context_messages: fields['context_messages'] ?? [],
  };
  writeFileSync(join(layout.sessions, `${sessionId}.json`), JSON.stringify(sidecar, null, 1));
}

export interface HermesStateRow {
  readonly id: number;
  readonly sessionId: string;
  readonly role: string;
  readonly content: string | null;
  readonly timestamp: number;
  readonly toolCalls?: unknown[];
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly apiContent?: string;
  readonly active?: boolean;
}

/** The agent's `state.db` with its `sessions` and `messages` tables (every optional column present); rows are added to an existing file. */
export async function writeStateDb(path: string, rows: readonly HermesStateRow[]): Promise<void> {
  const SQL = await initSqlJs();
  const db = existsSync(path) ? new SQL.Database(readFileSync(path)) : new SQL.Database();
  try {
    db.exec(`CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL);
      CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
        content TEXT, timestamp REAL NOT NULL, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, reasoning TEXT,
        reasoning_details TEXT, codex_reasoning_items TEXT, reasoning_content TEXT, codex_message_items TEXT,
        api_content TEXT, active INTEGER NOT NULL DEFAULT 1)`);
    const session = db.prepare('INSERT OR IGNORE INTO sessions (id, source, started_at) VALUES (?, ?, ?)');
    const insert = db.prepare(`INSERT INTO messages (id, session_id, role, content, timestamp, tool_call_id, tool_calls, tool_name, api_content, active)
      VALUES (@id, @sessionId, @role, @content, @timestamp, @toolCallId, @toolCalls, @toolName, @apiContent, @active)`);
    db.exec('BEGIN');
    for (const row of rows) {
      session.run([row.sessionId, 'webui', row.timestamp]);
      insert.run({
        '@id': row.id,
        '@sessionId': row.sessionId,
        '@role': row.role,
        '@content': row.content,
        '@timestamp': row.timestamp,
        '@toolCallId': row.toolCallId ?? null,
        '@toolCalls': row.toolCalls ? JSON.stringify(row.toolCalls) : null,
        '@toolName': row.toolName ?? null,
        '@apiContent': row.apiContent ?? '',
        '@active': row.active === false ? 0 : 1,
      });
    }
    db.exec('COMMIT');
    session.free();
    insert.free();
    writeFileSync(path, db.export());
  } finally {
    db.close();
  }
}

export interface HermesJournalEvent {
  readonly event: string;
  readonly payload?: Record<string, unknown>;
  readonly createdAt: number;
}

const TERMINAL: Readonly<Record<string, string>> = { done: 'completed', stream_end: 'completed', cancel: 'interrupted-by-user', apperror: 'errored', error: 'errored' };

/** One run journal, a line per SSE frame with seq from 1; `tail` is appended raw (a torn last write). */
export function writeJournal(layout: HermesLayout, sessionId: string, runId: string, events: readonly HermesJournalEvent[], tail = ''): void {
  const lines = events.map((e, i) => {
    const seq = i + 1;
    const state = TERMINAL[e.event] ?? null;
    const line = { version: 1, event_id: `${runId}:${seq}`, seq, run_id: runId, session_id: sessionId, event: e.event, type: e.event, created_at: e.createdAt, terminal: state !== null, terminal_state: state, payload: e.payload ?? {} };
    return JSON.stringify(line);
  });
  mkdirSync(join(layout.journals, sessionId), { recursive: true });
  writeFileSync(join(layout.journals, sessionId, `${runId}.jsonl`), `${lines.join('\n')}\n${tail}`);
}
