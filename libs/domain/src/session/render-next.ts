import { findRun } from '../session-state/run-table.js';
import { render } from './session.render.js';
import type { SessionState, StoredRun } from '../session-state/session.state.js';
import { summarize } from './session.summary.js';
import type { SessionView } from './session.view.js';

/**
 * What `render` reads of a state, by reference: the fields named below and the runs that carry an
 * interruption. Enough to tell whether a later state renders the same transcript, without holding the state
 * itself (its run journals, megabytes on a long streamed session) for as long as the view is kept.
 */
export interface RenderInputs {
  readonly committed: SessionState['committed'];
  readonly stateRows: SessionState['stateRows'];
  readonly pending: SessionState['pending'];
  readonly interruptedRuns: SessionState['interruptedRuns'];
  readonly watermark: SessionState['watermark'];
  readonly boundary: SessionState['boundary'];
  readonly sessionId: SessionState['sessionId'];
  /** The interrupted runs' entries in the run table, in the order of `interruptedRuns`. */
  readonly interrupted: readonly (StoredRun | undefined)[];
}

export function renderInputsOf(state: SessionState): RenderInputs {
  const { committed, stateRows, pending, interruptedRuns, watermark, boundary, sessionId } = state;
  return { committed, stateRows, pending, interruptedRuns, watermark, boundary, sessionId, interrupted: interruptedRuns.map((runId) => findRun(state.runs, runId)) };
}

/** A view together with what it was rendered from. */
export interface RenderedState {
  readonly inputs: RenderInputs;
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
export function rendersSameTranscript(before: SessionState | RenderInputs, after: SessionState): boolean {
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
  if ('runs' in before) {
    if (before.runs === after.runs) return true;
    return after.interruptedRuns.every((runId) => findRun(before.runs, runId) === findRun(after.runs, runId));
  }
  // The same `interruptedRuns` array, so `interrupted` follows its order.
  return after.interruptedRuns.every((runId, index) => before.interrupted[index] === findRun(after.runs, runId));
}

/**
 * The view of `next`, reusing `previous` when nothing its transcript depends on changed (the display, the
 * context, tool cards and markers keep their references; only the summary is derived again), and rendering in
 * full otherwise. Equal, byte for byte, to `render(next)`: the property test proves it over random histories.
 */
export function renderNext(previous: RenderedState | null | undefined, next: SessionState): SessionView {
  if (previous == null) return render(next);
  if (!rendersSameTranscript(previous.inputs, next)) return render(next);
  const { view } = previous;
  return { ...view, pendingTurn: next.pending, summary: summarize(next, view.display.length, view.markers) };
}
