import type { MessageRow } from '../messages/message-row.js';
import { rowFromEmbeddedMessage } from './embedded-row.mapper.js';
import { summarizeJournal } from './journal-summary.projection.js';
import { ws } from '../text/whitespace.js';
import type { GatewayErrorInput, GatewayErrorResult, JournalSummary } from './journal.types.js';
import { findTurnStart } from './recovered-pending-row.factory.js';

export interface GatewayTerminalError {
  /** `${runId}:${seq}` of the apperror. */
  readonly eventId: string;
  /** The failed turn's error row as the gateway saved it (camelCase, untagged). */
  readonly row: MessageRow;
}

type RawRecord = { readonly [key: string]: unknown };

function asRecord(value: unknown): RawRecord | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as RawRecord) : null;
}

/** The error row that ends the embedded transcript's last turn: an `_error` assistant row with text. */
function embeddedErrorRow(messages: unknown): MessageRow | null {
  if (!Array.isArray(messages)) return null;
  const lastUser = messages.findLastIndex((message) => asRecord(message)?.['role'] === 'user');
  if (lastUser < 0) return null;
  const error = messages
    .slice(lastUser + 1)
    .findLast((message) => {
      const raw = asRecord(message);
      const content = raw?.['content'];
      return raw?.['role'] === 'assistant' && raw['_error'] === true && typeof content === 'string' && ws(content) !== '';
    });
  return error === undefined ? null : rowFromEmbeddedMessage(error);
}

/**
 * §3.8: the gateway error a run's journal ends with, when every identity check holds: the
 * authoritative terminal event is an `apperror` of this run with a valid seq, the payload and its
 * embedded session name this session, the gateway did not persist that session itself, and the
 * embedded transcript ends its last user turn with a non-blank error row.
 */
export function findGatewayTerminalError(sessionId: string, journal: JournalSummary): GatewayTerminalError | null {
  const event = journal.authoritativeEvent;
  if (event === null || event.event !== 'apperror') return null;
  if (!Number.isSafeInteger(event.seq) || event.seq < 1 || sessionId === '') return null;
  const payload = event.payload ?? {};
  const session = asRecord(payload['session']);
  if (payload['session_id'] !== sessionId || session?.['session_id'] !== sessionId) return null;
  const persistedHere =
    payload['terminal_session_persisted'] === true && payload['terminal_session_persisted_session_id'] === sessionId;
  if (persistedHere) return null;
  const row = embeddedErrorRow(session['messages']);
  return row === null ? null : { eventId: `${journal.runId}:${event.seq}`, row };
}

function tag(row: MessageRow, runId: string, eventId: string): MessageRow {
  return { ...row, recoveredFromRunJournal: true, recoveredRunId: runId, recoveredEventId: eventId };
}

/** Index of the turn's own copy of the error after its user row, skipping rows of other runs. */
function findOwnErrorCopy(rows: readonly MessageRow[], from: number, runId: string, content: unknown): number | null {
  for (let index = rows.length - 1; index > from; index -= 1) {
    const row = rows[index];
    if (row.recoveredRunId && row.recoveredRunId !== runId) continue;
    if (row.role === 'assistant' && row.error && row.content === content) return index;
  }
  return null;
}

/**
 * §3.8 materialisation: tags the turn's existing copy of the gateway error, else appends a tagged
 * copy; does nothing twice for one event. Run it after `materialiseJournal` so the error is the
 * turn's last row.
 */
export function recoverGatewayTerminalError(input: GatewayErrorInput): GatewayErrorResult {
  const found = findGatewayTerminalError(input.sessionId, summarizeJournal(input.runId, input.events));
  if (found === null) return { rows: [...input.rows], recovered: false, eventId: null };
  const { eventId, row } = found;
  if (input.rows.some((existing) => existing.recoveredEventId === eventId)) {
    return { rows: [...input.rows], recovered: true, eventId };
  }
  const turnStart = input.pending ? findTurnStart(input.rows, input.pending) : null;
  const copy = turnStart === null ? null : findOwnErrorCopy(input.rows, turnStart, input.runId, row.content);
  const rows =
    copy === null
      ? [...input.rows, tag(row, input.runId, eventId)]
      : input.rows.map((existing, index) => (index === copy ? tag(existing, input.runId, eventId) : existing));
  return { rows, recovered: true, eventId };
}
