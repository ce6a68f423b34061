import type { InterruptionCause, MarkerStatus } from '../messages/message-row.js';

/** The phrases every marker's text holds (reference §3.1): how a marker row is told by its text (§3.10). */
export const MARKER_PHRASES = ['Response interrupted', 'before this turn finished'] as const;
const [HEADLINE, UNFINISHED] = MARKER_PHRASES;

/** Shared opening of every "Response interrupted" marker (reference §3.1). */
export const INTERRUPTED_MARKER_LEAD = `**${HEADLINE}.**\n\nThe live response stream stopped ${UNFINISHED}.`;

const RECOVERED_OUTCOME =
  'The partial output above was recovered from the run journal, but the interrupted agent process could not continue.';
const NO_OUTPUT_OUTCOME = 'The user message above was preserved, but no agent output was recovered.';
const PENDING_RETRY_OUTCOME = 'Recovering the partial output from the run journal \u2014 reload this session to retry.';
const NEUTRAL_OUTCOME = 'Partial output may have been lost.';

/** The marker statuses that show a row; a superseded marker shows none. */
export type ShownMarkerStatus = Exclude<MarkerStatus, 'superseded'>;

/** Outcome sentence per status (§3.2; neutral per the architecture). */
export const MARKER_OUTCOMES: Readonly<Record<ShownMarkerStatus, string>> = {
  recovered: RECOVERED_OUTCOME,
  pending_journal: PENDING_RETRY_OUTCOME,
  no_output: NO_OUTPUT_OUTCOME,
  neutral: NEUTRAL_OUTCOME,
};

export const INTERRUPTED_RECOVERED_WORDING = `${INTERRUPTED_MARKER_LEAD} ${RECOVERED_OUTCOME}`;
export const INTERRUPTED_NO_OUTPUT_WORDING = `${INTERRUPTED_MARKER_LEAD} ${NO_OUTPUT_OUTCOME}`;
export const INTERRUPTED_PENDING_RETRY_WORDING = `${INTERRUPTED_MARKER_LEAD} ${PENDING_RETRY_OUTCOME}`;
export const INTERRUPTED_NEUTRAL_WORDING = `${INTERRUPTED_MARKER_LEAD} ${NEUTRAL_OUTCOME}`;

/** Evidence sentence per cause (reference §3.2). None asserts "process restarted" as a fact (#2739). */
export const INTERRUPTION_CAUSE_DETAILS: Readonly<Record<InterruptionCause, string>> = {
  process_restart:
    'Evidence: the WebUI process started after this turn began, so this looks like a real process crash or restart.',
  stream_run_split_brain:
    'Evidence: the browser response stream was gone but the worker registry still listed the run. ' +
    'This is a stream/run bookkeeping split-brain.',
  lost_worker_bookkeeping:
    'Evidence: the stream was gone and worker bookkeeping no longer had an active run for it. ' +
    'This usually means the worker state was lost or cleaned up without a terminal event.',
  unknown: 'Evidence: the stream stopped, but the WebUI could not classify the interruption more precisely.',
};

/** The evidence sentence of a cause; a cause this version does not know reads as `unknown`. */
export function causeDetail(cause: InterruptionCause): string {
  return Object.hasOwn(INTERRUPTION_CAUSE_DETAILS, cause)
    ? INTERRUPTION_CAUSE_DETAILS[cause]
    : INTERRUPTION_CAUSE_DETAILS.unknown;
}

/** A marker's content: lead, evidence for the cause, outcome for the status. */
export function composeMarkerContent(cause: InterruptionCause, status: ShownMarkerStatus): string {
  return `${INTERRUPTED_MARKER_LEAD} ${causeDetail(cause)} ${MARKER_OUTCOMES[status]}`;
}
