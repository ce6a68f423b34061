export { initialSessionState, isRunSlot, runOf } from './session.state.js';
export type {
  CommittedEntry,
  InterruptionRecord,
  PendingTurnView,
  RunOutcome,
  RunRecord,
  RunSlot,
  SessionState,
} from './session.state.js';
export { evolve, evolveAll } from './session.evolve.js';
export { projectSession, render, renderTranscript } from './session.render.js';
export { renderInputsOf, renderNext, rendersSameTranscript, type RenderedState, type RenderInputs } from './render-next.js';
export { streamingOutputOf, type StreamingOutput } from './streaming-output.js';
export { transcriptDelta, type TranscriptDelta } from './transcript-delta.js';
export { chainRows, TRANSCRIPT_CHAIN_SEED, transcriptHashOf } from './transcript-hash.js';
export { canSupersede } from './commit.policy.js';
export { findStateRow } from './state-rows.js';
export type {
  MarkerCounts,
  RenderedTranscript,
  SessionStatus,
  SessionSummaryView,
  SessionView,
  TranscriptViewName,
} from './session.view.js';
