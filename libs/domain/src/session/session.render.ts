import type { SessionEvent } from '../events/session.events.js';
import { composeMarkerContent } from '../markers/marker-wording.constants.js';
import { deriveShownMarkerStatus } from '../markers/marker-status.policy.js';
import { summarizeJournal } from '../journal/journal-summary.projection.js';
import { reconcileContext } from '../context/context.reconcile.js';
import type { Marker, MessageRow, ToolCard } from '../messages/message-row.js';
import { withMirroredContent } from '../session-state/prompt-mirror.js';
import type { DerivedMarker } from '../session-state/run-segment.js';
import { withoutApiContent } from '../session-state/row-identity.js';
import { chainRows, transcriptHashOf } from './transcript-hash.js';
import { evolveAll } from './session.evolve.js';
import { initialSessionState, runOf, type SessionState } from '../session-state/session.state.js';
import { summarize } from './session.summary.js';
import type { RenderedTranscript, SessionView, TranscriptViewName } from './session.view.js';
import { effectiveStateRows } from '../session-state/state-rows.js';
import { expandCommitted } from '../session-state/transcript.expand.js';
import { mergeWithSources } from '../session-state/transcript.merge.js';

/** Markers in decision order; runs that ended without one (completed journal, gateway error, cut away) are left out. */
function listMarkers(state: SessionState, derived: readonly DerivedMarker[], displayIndexOf: (row: number) => number | null): Marker[] {
  const byRun = new Map(derived.map((marker) => [marker.runId, marker]));
  const markers: Marker[] = [];
  for (const runId of state.interruptedRuns) {
    const run = runOf(state, runId);
    const interruption = run?.interruption;
    if (run === undefined || interruption == null) continue;
    const shown = byRun.get(runId);
    if (shown !== undefined) {
      const { cause, status, content, timestamp } = shown;
      markers.push({ runId, cause, status, content, timestamp, messageIndex: displayIndexOf(shown.rowIndex) });
    } else if (interruption.superseded) {
      const status = deriveShownMarkerStatus(summarizeJournal(runId, run.journal), interruption.abandoned);
      markers.push({
        runId,
        cause: interruption.cause,
        status: 'superseded',
        content: composeMarkerContent(interruption.cause, status),
        timestamp: Math.trunc(interruption.detectedAt),
        messageIndex: null,
      });
    }
  }
  return markers;
}

/** The view of a folded state: the only place the merge runs on the full lists. */
export function render(state: SessionState): SessionView {
  const stateRows = effectiveStateRows(state.stateRows, state.pending);
  const expansion = expandCommitted(state, { withContext: true, withPending: true });
  const merged = mergeWithSources(expansion, stateRows, state);
  const displayIndex = new Array<number | null>(expansion.rows.length).fill(null);
  merged.sources.forEach((source, index) => {
    if (source >= 0) displayIndex[source] = index;
  });
  const displayIndexOf = (row: number): number | null => displayIndex[row] ?? null;
  const display: MessageRow[] = merged.rows.map(withoutApiContent);
  // A prompt's agent mirror is left out of both merges; the prompt's context copy carries its content instead.
  const local = withMirroredContent(expansion.context, expansion.rows, merged.mirrors);
  const context =
    merged.stateRows.length === 0
      ? [...local]
      : reconcileContext(local, merged.stateRows, { watermark: state.watermark, boundary: state.boundary });
  const toolCards: ToolCard[] = expansion.toolCards.map((card) =>
    card.assistantMessageIndex === null ? card : { ...card, assistantMessageIndex: displayIndexOf(card.assistantMessageIndex) },
  );
  const markers = listMarkers(state, expansion.markers, displayIndexOf);
  return {
    display,
    context,
    toolCards,
    markers,
    pendingTurn: state.pending,
    summary: summarize(state, display.length, markers),
  };
}

/**
 * `render(events.reduce(evolve, initialSessionState()))`, folded in one pass that owns its intermediate
 * states (so a token event is a push, not a copy). Same events in, same view out.
 */
export function projectSession(events: Iterable<SessionEvent>): SessionView {
  return render(evolveAll(initialSessionState(), events));
}

/**
 * One transcript of a view as the API answers it, with its hash. `previous` (an earlier transcript of the same
 * session and view) lends the chain links of the rows both share, so only new rows are hashed.
 */
export function renderTranscript(view: SessionView, name: TranscriptViewName, previous?: RenderedTranscript): RenderedTranscript {
  const messages = name === 'display' ? view.display : view.context;
  const { toolCards } = view;
  const links = chainRows(messages, previous);
  return { messages, toolCards, hash: transcriptHashOf(links, toolCards), links };
}
