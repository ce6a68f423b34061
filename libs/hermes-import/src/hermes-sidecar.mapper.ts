import { createHash } from 'node:crypto';
import { fieldErrorsOf, ID_PATTERN, type MessageRow, messageRowSchema, type UserMessageSubmittedData } from '#domain';
import { mapSidecarRow } from './hermes-row.mapper.js';
import type { Skipped } from './hermes-import.report.js';

/** One sidecar file, read as the import needs it (reference §1.1). */
export interface SidecarPlan {
  readonly file: string;
  readonly sessionId: string;
  readonly title: string | null;
  readonly parentSessionId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number | null;
  readonly rows: readonly MessageRow[];
  /** The rows at or before the truncation boundary, then the watermark's reason (`clear` for the 0.0 sentinel). */
  readonly truncation: { readonly keepCount: number; readonly reason: 'edit' | 'clear'; readonly at: number } | null;
  readonly pending: UserMessageSubmittedData | null;
  /** `pre_compression_snapshot`: an archived compression parent (its child names it as parent). */
  readonly compressionParent: boolean;
  /** Rows left out, with their reasons. */
  readonly skipped: readonly Skipped[];
}

type Raw = { readonly [key: string]: unknown };

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const epoch = (value: unknown): number | null => {
  const n = num(value);
  return n !== null && n >= 0 ? n : null;
};

/** The session id a file names: `<sessionId>.json`, or the `session_id` inside when the two agree. */
export const sessionIdOfFile = (file: string): string => file.replace(/^.*[\\/]/, '').replace(/\.json$/, '');

/**
 * W and B as a cut of the rows: the rows up to the boundary B (or W when B is missing) are kept by a
 * truncation, the rows after it were committed later and advance W again as they are recorded.
 */
function truncationOf(raw: Raw, rows: readonly MessageRow[]): SidecarPlan['truncation'] {
  const watermark = num(raw['truncation_watermark']);
  if (watermark === null) return null;
  const boundary = num(raw['truncation_boundary']) ?? watermark;
  if (watermark === 0 || boundary === 0) return { keepCount: 0, reason: 'clear', at: 0 };
  const after = rows.findIndex((row) => typeof row.timestamp === 'number' && row.timestamp > boundary);
  return { keepCount: after < 0 ? rows.length : after, reason: 'edit', at: boundary };
}

/**
 * The pending turn fields (§1.1 runtime/pending); a prompt without a stream id gets a run id made from its start,
 * or, with no start saved either, from its text: the time it then falls back to (`updated_at`) moves whenever
 * hermes saves the session, and a re-run would take the same prompt for another turn.
 */
function pendingOf(raw: Raw, sessionId: string, fallbackAt: number): UserMessageSubmittedData | null {
  const text = raw['pending_user_message'];
  if (typeof text !== 'string' || text === '') return null;
  const startedAt = epoch(raw['pending_started_at']);
  const submittedAt = startedAt ?? fallbackAt;
  const start = startedAt === null ? `t${createHash('sha256').update(text).digest('hex').slice(0, 16)}` : String(Math.trunc(startedAt));
  const runId = str(raw['active_stream_id']) ?? `hermes-pending-${sessionId}-${start}`.slice(0, 128);
  const attachments = Array.isArray(raw['pending_attachments']) ? [...raw['pending_attachments']] : [];
  const source = str(raw['pending_user_source']);
  return { runId, text, attachments, source: source === 'webui' ? null : source, submittedAt };
}

/** Parses one sidecar file; a file that is not a session is one skipped item with its reason. */
export function planSidecar(file: string, content: unknown): { plan: SidecarPlan } | { problem: string } {
  let raw: unknown = content;
  if (typeof content === 'string') {
    try {
      raw = JSON.parse(content);
    } catch (error) {
      return { problem: `not JSON (${(error as Error).message})` };
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { problem: 'not a JSON object' };
  const sidecar = raw as Raw;
  const sessionId = str(sidecar['session_id']) ?? sessionIdOfFile(file);
  if (!ID_PATTERN.test(sessionId)) return { problem: `session id ${JSON.stringify(sessionId)} is refused by the contract ([A-Za-z0-9_.:-]{1,128})` };
  if (sessionId !== sessionIdOfFile(file)) return { problem: `session_id ${JSON.stringify(sessionId)} does not match the file name` };
  const messages = sidecar['messages'] ?? [];
  if (!Array.isArray(messages)) return { problem: 'messages is not a list' };
  const rows: MessageRow[] = [];
  const skipped: Skipped[] = [];
  messages.forEach((message, index) => {
    const mapped = mapSidecarRow(message);
    const parsed = 'row' in mapped ? messageRowSchema.safeParse(mapped.row) : null;
    if (parsed?.success) rows.push(parsed.data as MessageRow);
    else {
      const problem = parsed ? fieldErrorsOf(parsed.error).map((e) => `${e.path}: ${e.message}`).join('; ') : (mapped as { problem: string }).problem;
      skipped.push({ item: `${file} messages[${index}]`, reason: `${problem}; row left out` });
    }
  });
  const parent = str(sidecar['parent_session_id']);
  if (parent !== null && !ID_PATTERN.test(parent)) return { problem: `parent_session_id ${JSON.stringify(parent)} is refused by the contract` };
  const stamps = rows.map((row) => row.timestamp).filter((ts): ts is number => typeof ts === 'number' && ts >= 0);
  const updatedAt = epoch(sidecar['updated_at']);
  const createdAt = epoch(sidecar['created_at']) ?? (stamps.length > 0 ? stamps.reduce((a, b) => Math.min(a, b)) : (updatedAt ?? 0));
  return {
    plan: {
      file,
      sessionId,
      title: typeof sidecar['title'] === 'string' ? sidecar['title'] : null,
      parentSessionId: parent,
      createdAt,
      updatedAt,
      rows,
      truncation: truncationOf(sidecar, rows),
      pending: pendingOf(sidecar, sessionId, updatedAt ?? createdAt),
      compressionParent: sidecar['pre_compression_snapshot'] === true,
      skipped,
    },
  };
}
