import type { z } from 'zod';
import { fieldErrorsOf } from '../events/parse-session-event.js';
import { deriveJournalOutcome } from '../markers/marker-status.policy.js';
import { summarizeJournal } from '../journal/journal-summary.projection.js';
import type { RunRecord, SessionState } from '../session-state/session.state.js';
import { effectiveStateRows } from '../session-state/state-rows.js';
import { expandCommitted } from '../session-state/transcript.expand.js';
import { mergeWithSources } from '../session-state/transcript.merge.js';
import { DomainError } from '../errors/domain.error.js';

/** Parses command data with its schema; every bad field is named in a VALIDATION error. */
export function validated<Schema extends z.ZodType>(schema: Schema, data: unknown): z.output<Schema> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new DomainError('VALIDATION', 'invalid command data', fieldErrorsOf(parsed.error));
  return parsed.data;
}

export function requireSession(state: SessionState): string {
  if (state.sessionId === null) throw new DomainError('SESSION_NOT_FOUND', 'the session was never started');
  return state.sessionId;
}

/** An archived compression parent takes facts (rows, journals) but no new turns or decisions. */
export function requireOpenSession(state: SessionState): string {
  const sessionId = requireSession(state);
  if (state.archived) throw new DomainError('SESSION_ARCHIVED', 'the session was compressed into a child session');
  return sessionId;
}

/** Rows of the committed display (the pending prompt excluded): what a truncation's keepCount counts. */
export function committedDisplayLength(state: SessionState): number {
  const expansion = expandCommitted(state, { withContext: false, withPending: false });
  return mergeWithSources(expansion, effectiveStateRows(state.stateRows, state.pending), state).rows.length;
}

/** The marker of an interrupted run still waits for its journal (the one marker rule, `deriveJournalOutcome`). */
export function markerAwaitsJournal(run: RunRecord): boolean {
  const interruption = run.interruption;
  if (interruption === null || interruption.superseded || interruption.abandoned) return false;
  const journal = summarizeJournal(run.runId, run.journal);
  return deriveJournalOutcome(journal, false) === 'pending_journal';
}
