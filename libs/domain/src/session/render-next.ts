import { findRun } from '../session-state/run-table.js';
import { render } from './session.render.js';
import type { SessionState } from '../session-state/session.state.js';
import { summarize } from './session.summary.js';
import type { SessionView } from './session.view.js';

/** A view together with the state it was rendered from. */
export interface RenderedState {
  readonly state: SessionState;
  readonly view: SessionView;
}

/**
 * True when `render` reads nothing different in `after` than in `before`, so both render the same transcript,
 * tool cards and markers. `render` reads S (`committed`), the agent store's rows, the pending turn, the
 * watermark pair, the session id, and the runs that carry an interruption (their slot rows and markers); it
 * never reads the journal of a run without one. Folds copy what they write (draft.ts) and never write a state
 * that left them, so an unchanged reference is unchanged content. A token streamed into the pending turn's
 * journal changes none of these; anything else that could reach back (a settle, a truncation, an observation,
 * a decision, a journal event of an interrupted run) changes one of them, and the caller renders in full.
 * A state parsed from a snapshot shares no references with the one before it: also a full render, never a
 * wrong one.
 */
export function rendersSameTranscript(before: SessionState, after: SessionState): boolean {
  if (
    before.committed !== after.committed ||
    before.stateRows !== after.stateRows ||
    before.pending !== after.pending ||
    before.interruptedRuns !== after.interruptedRuns ||
    before.watermark !== after.watermark ||
    before.boundary !== after.boundary ||
    before.sessionId !== after.sessionId
  ) {
    return false;
  }
  if (before.runs === after.runs) return true;
  for (const runId of after.interruptedRuns) {
    if (findRun(before.runs, runId) !== findRun(after.runs, runId)) return false;
  }
  return true;
}

/**
 * The view of `next`, reusing `previous` when nothing its transcript depends on changed (the display, the
 * context, tool cards and markers keep their references; only the summary is derived again), and rendering in
 * full otherwise. Equal, byte for byte, to `render(next)`: the property test proves it over random histories.
 */
export function renderNext(previous: RenderedState | null | undefined, next: SessionState): SessionView {
  if (previous == null) return render(next);
  if (previous.state === next) return previous.view;
  if (!rendersSameTranscript(previous.state, next)) return render(next);
  const { view } = previous;
  return { ...view, pendingTurn: next.pending, summary: summarize(next, view.display.length, view.markers) };
}
