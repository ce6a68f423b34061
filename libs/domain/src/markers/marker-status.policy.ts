import type { InterruptionCause, MarkerStatus, MessageRow } from '../messages/message-row.js';
import type { JournalSummary } from '../journal/journal.types.js';
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

/** What an interrupted run's journal decides: the turn is settled from it (no marker), or the marker's status. */
export type JournalOutcome = 'settled' | ShownMarkerStatus;

/**
 * THE marker rule: the one function the view (run-segment, render), the decider guards and the recovery
 * policy call, so they never disagree about whether a journal ends the turn.
 *
 * The turn is settled from its journal (recovered rows, no marker, §3.5) when its authoritative terminal state is
 * `completed` (§1.4) and either
 *  - the authoritative event is `done` and the journal is whole (no seq gap): the worker reported completion, with
 *    or without visible output, or
 *  - the journal has visible output (a journal closed only by `stream_end`, the transport closure, settles only so).
 * Otherwise the marker shows `deriveShownMarkerStatus`: recovered › no_output › neutral › pending_journal. So a
 * `stream_end`-only journal without output keeps a `no_output` marker, and a `done` behind a missing seq stays
 * `pending_journal` (the supervisor may give it up) until the missing seq arrives and the turn settles. Arrival order
 * does not matter: the whole journal is read every time.
 */
export function deriveJournalOutcome(journal: JournalSummary, abandoned: boolean): JournalOutcome {
  if (journal.terminalState === 'completed') {
    const doneWhole = journal.authoritativeEvent?.event === 'done' && journal.gaps.length === 0;
    if (doneWhole || journal.hasVisibleOutput) return 'settled';
  }
  return deriveShownMarkerStatus(journal, abandoned);
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
