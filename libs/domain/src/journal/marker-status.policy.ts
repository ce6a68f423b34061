import type { InterruptionCause, MarkerStatus, MessageRow } from '../messages/message-row.js';
import type { JournalSummary } from './journal.types.js';
import { composeMarkerContent, type ShownMarkerStatus } from './marker-wording.constants.js';

export interface MarkerStatusInput {
  /** The summary of the interrupted run's journal (summarise `[]` when nothing arrived). */
  readonly journal: JournalSummary;
  /** A `JournalRecoveryAbandoned` exists for the run. */
  readonly abandoned: boolean;
  /** The run's own worker settled the turn after the marker (§3.10). */
  readonly superseded: boolean;
}

/**
 * The status of a `TurnInterrupted` marker, derived afresh from the journal on every fold, so a
 * journal that arrives late promotes it without retry counters:
 * recovered › no_output › neutral › pending_journal, and superseded over all of them.
 */
export function deriveMarkerStatus(input: MarkerStatusInput): MarkerStatus {
  if (input.superseded) return 'superseded';
  return deriveShownMarkerStatus(input.journal, input.abandoned);
}

/** The status the marker shows, ignoring a supersede (what a superseded marker would have said). */
export function deriveShownMarkerStatus(journal: JournalSummary, abandoned: boolean): ShownMarkerStatus {
  if (journal.hasVisibleOutput) return 'recovered';
  // A terminal event with no hole before it proves the journal is complete and empty of output.
  if (journal.terminal && journal.gaps.length === 0) return 'no_output';
  if (abandoned) return 'neutral';
  return 'pending_journal';
}

/** §3.5: a journal whose authoritative terminal state is `completed` settles the turn; no marker. */
export function journalEndsTurn(summary: JournalSummary): boolean {
  return summary.terminalState === 'completed';
}

export interface MarkerRowInput {
  readonly cause: InterruptionCause;
  readonly status: ShownMarkerStatus;
  /** Epoch seconds the marker was built at (the decision's `detectedAt`); its integer part is used. */
  readonly timestamp: number;
}

/** The marker row of §3.4, without the reference's lazy-retry meta (Chronicle derives the status). */
export function buildMarkerRow(input: MarkerRowInput): MessageRow {
  return {
    role: 'assistant',
    content: composeMarkerContent(input.cause, input.status),
    timestamp: Math.trunc(input.timestamp),
    error: true,
    type: 'interrupted',
    interruptionCause: input.cause,
  };
}
