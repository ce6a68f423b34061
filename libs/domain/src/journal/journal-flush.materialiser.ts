import type { MessageRow } from '../messages/message-row.js';
import { mirrorToContext } from '../context/context-rows.projection.js';
import { wholeSeconds } from './journal-text.helpers.js';
import { rowText } from '../messages/message-text.js';
import { ws } from '../text/whitespace.js';
import type { MaterialiseJournalInput, PendingTurn } from './journal.types.js';
import { isCheckpointMatch } from './recovered-pending-row.factory.js';

/** §3.7: a re-run may reuse a pre-existing row containing the candidate only from this length on. */
export const SUBSTRING_DEDUPE_MIN_LENGTH = 24;

/** Working state of one materialisation pass; local to the pass, never shared. */
export interface Draft {
  readonly runId: string;
  readonly preCount: number;
  readonly dedupe: boolean;
  readonly pending: PendingTurn | null;
  readonly fallbackTimestamp: number;
  readonly rows: MessageRow[];
  context: MessageRow[];
  readonly claimed: Set<number>;
  text: string;
  reasoning: string;
  startedAt: number | null;
  current: number | null;
  recovered: boolean;
}

export function createDraft(input: MaterialiseJournalInput): Draft {
  return {
    runId: input.runId,
    preCount: input.rows.length,
    dedupe: input.dedupeExisting,
    pending: input.pending ?? null,
    fallbackTimestamp: input.fallbackTimestamp,
    rows: [...input.rows],
    context: [...input.context],
    claimed: new Set(),
    text: '',
    reasoning: '',
    startedAt: null,
    current: null,
    recovered: false,
  };
}

function isOwnRecoveredRow(draft: Draft, row: MessageRow): boolean {
  return row.role === 'assistant' && row.recoveredFromRunJournal === true && row.recoveredRunId === draft.runId;
}

/** With reasoning, a reused row must be the current turn's: owned by the pending prompt, no newer prompt after it. */
function belongsToCurrentTurn(draft: Draft, index: number): boolean {
  const owner = draft.rows.slice(0, index).findLast((row) => row.role === 'user');
  if (draft.pending && (owner === undefined || !isCheckpointMatch(owner, draft.pending))) return false;
  const pending = draft.pending;
  return !draft.rows
    .slice(index + 1, draft.preCount)
    .some((row) => row.role === 'user' && !(row.recovered && pending !== null && isCheckpointMatch(row, pending)));
}

function findReusableRow(draft: Draft, content: string, withReasoning: boolean): number | null {
  const candidate = ws(content);
  const texts = draft.rows.slice(0, draft.preCount).map((row, index) => {
    const open = row.role === 'assistant' && !row.error && !draft.claimed.has(index);
    return open ? ws(rowText(row)) : null;
  });
  // Ownership is checked only for rows whose text already matches: it scans the transcript.
  const reusable = (matches: (text: string) => boolean): number | null => {
    const index = texts.findIndex(
      (text, at) => text !== null && matches(text) && (!withReasoning || belongsToCurrentTurn(draft, at)),
    );
    return index >= 0 ? index : null;
  };
  const exact = reusable((text) => text === candidate);
  if (exact !== null || candidate.length < SUBSTRING_DEDUPE_MIN_LENGTH) return exact;
  return reusable((text) => text.includes(candidate));
}

function claimRow(draft: Draft, index: number, reasoning: string): void {
  draft.claimed.add(index);
  const row = draft.rows[index];
  if (reasoning !== '' && ws(row.reasoning) === '') {
    draft.rows[index] = { ...row, reasoning };
    draft.recovered = true;
  }
  draft.context = mirrorToContext(draft.context, draft.rows, draft.rows[index]);
  draft.current = index;
}

function findReasoningRow(draft: Draft, reasoning: string): number | null {
  const index = draft.rows.findLastIndex(
    (row) => isOwnRecoveredRow(draft, row) && ws(rowText(row)) === '' && (row.reasoning ?? '').trim() === reasoning,
  );
  return index >= 0 ? index : null;
}

/** Turns the buffered text and reasoning into a row (or reuses one on a re-run); empties the buffers. */
export function flush(draft: Draft): void {
  const content = draft.text.trim();
  const reasoning = draft.reasoning.trim();
  const startedAt = draft.startedAt;
  draft.text = '';
  draft.reasoning = '';
  draft.startedAt = null;
  if (content === '' && reasoning === '') return;
  if (draft.dedupe) {
    const reused = content !== '' ? findReusableRow(draft, content, reasoning !== '') : findReasoningRow(draft, reasoning);
    if (reused !== null && content !== '') return claimRow(draft, reused, reasoning);
    if (reused !== null) {
      draft.current = reused;
      return;
    }
  }
  const row: MessageRow = {
    role: 'assistant',
    content,
    timestamp: wholeSeconds(startedAt, draft.fallbackTimestamp),
    recoveredFromRunJournal: true,
    recoveredRunId: draft.runId,
    ...(reasoning !== '' ? { reasoning } : {}),
  };
  draft.rows.push(row);
  draft.current = draft.rows.length - 1;
  draft.recovered = true;
  draft.context = mirrorToContext(draft.context, draft.rows, row);
}

/** #3875: tools hang under the current row, else under the run's one empty anchor row. */
export function ensureAnchor(draft: Draft, createdAt: number): number {
  if (draft.current !== null) return draft.current;
  const reusable = draft.rows.findLastIndex(
    (row) => isOwnRecoveredRow(draft, row) && ws(rowText(row)) === '' && ws(row.reasoning) === '',
  );
  if (reusable >= 0) {
    draft.current = reusable;
    return reusable;
  }
  draft.rows.push({
    role: 'assistant',
    content: '',
    timestamp: wholeSeconds(createdAt, draft.fallbackTimestamp),
    recoveredFromRunJournal: true,
    recoveredRunId: draft.runId,
  });
  draft.current = draft.rows.length - 1;
  draft.recovered = true;
  return draft.current;
}
