import {
  evolve,
  hasToolCalls,
  isStampedInTurn,
  promptMatchOf,
  render,
  rowText,
  type MessageRow,
  type PromptMatch,
  type SessionState,
  type SessionView,
} from '#domain';

/**
 * Reference §4.5 (state.db self-heal) steps 3 and 6, made precise for the fold. Let
 * - `shown` = the display now: committed rows, agent rows up to the submission, the pending prompt;
 * - `adopted` = the display if the turn were handed to the agent rows: the fold after a
 *   `TurnRecoveredFromAgentStore` (every active agent row merged in, no pending prompt).
 * The agent store holds the turn when
 * 1. `adopted` is longer than `shown` without its pending prompt (step 6: the merge brings rows), and
 * 2. `adopted` shows the prompt at least as often as `shown` does — the agent rows carry the user's
 *    message, so adopting them never loses it (a row "is the prompt" as defined below), and
 * 3. the prompt and its answer are rows of this turn: the last row showing the prompt and an assistant row
 *    after it (neither an error nor a marker, with text or tool calls) are both stamped at or after the
 *    submission's second. Rows of earlier turns with the same text (a repeated prompt) do not count.
 * 3 is stricter than the reference, which adopts whenever the merge grows: a worker that died right after
 * storing the prompt gets `TurnInterrupted` (a marker, journal recovery) instead of a silent prompt-only
 * transcript, and an old identical exchange never swallows a new prompt.
 *
 * A row IS THE PENDING PROMPT when it holds it by the domain's prompt matching (`promptMatchOf`: its visible
 * text, or for a native-image turn its first text part, compared without the workspace tag the agent store adds);
 * rows of any origin in the display are asked alike. A different first text part, an older row, or no answer
 * after it (seed `test_state_db_pending_image_row_alone_does_not_skip_stale_journal_recovery`) still interrupts.
 */
export interface AgentStoreCheck {
  readonly holdsTurn: boolean;
  readonly shownRows: number;
  readonly adoptedRows: number;
  readonly promptShown: number;
  readonly promptAdopted: number;
  readonly promptIndex: number | null;
  readonly answerIndex: number | null;
  /** Which rule made the prompt row (at `promptIndex`) the pending prompt; null when none did. */
  readonly promptMatch: PromptMatch | null;
}

const isAnswer = (row: MessageRow): boolean =>
  row.role === 'assistant' && row.error !== true && row.type !== 'interrupted' && (rowText(row).trim() !== '' || hasToolCalls(row));

export function checkAgentStore(state: SessionState, shownView: SessionView, detectedAt: number): AgentStoreCheck {
  const pending = state.pending;
  const shown = shownView.display;
  const none = {
    holdsTurn: false,
    shownRows: shown.length,
    adoptedRows: shown.length,
    promptShown: 0,
    promptAdopted: 0,
    promptIndex: null,
    answerIndex: null,
    promptMatch: null,
  };
  if (pending === null || state.stateRows.every((row) => row.active === false)) return none;
  const adopted = render(evolve(state, { type: 'TurnRecoveredFromAgentStore', data: { runId: pending.runId, detectedAt, evidence: {} } })).display;
  const isPrompt = (row: MessageRow): boolean => promptMatchOf(row, pending) !== null;
  const promptShown = shown.filter(isPrompt).length;
  const promptAdopted = adopted.filter(isPrompt).length;
  const inTurn = (row: MessageRow): boolean => isStampedInTurn(row, pending.submittedAt);
  const promptIndex = adopted.findLastIndex((row) => isPrompt(row) && inTurn(row));
  const answer = promptIndex < 0 ? -1 : adopted.findIndex((row, index) => index > promptIndex && isAnswer(row) && inTurn(row));
  const holdsTurn = adopted.length > shown.length - 1 && promptAdopted >= promptShown && promptIndex >= 0 && answer >= 0;
  // The adopted display shows the submitted prompt in place of the agent row it mirrors (carrying that
  // row's rowId): classify the agent's own row, which is what proved the turn.
  const promptRow = promptIndex >= 0 ? (adopted[promptIndex] as MessageRow) : null;
  const agentRow =
    promptRow && typeof promptRow.rowId === 'number' ? state.stateRows.find((row) => row.rowId === promptRow.rowId) : undefined;
  return {
    holdsTurn,
    shownRows: shown.length,
    adoptedRows: adopted.length,
    promptShown,
    promptAdopted,
    promptIndex: promptIndex >= 0 ? promptIndex : null,
    answerIndex: answer >= 0 ? answer : null,
    promptMatch: promptRow ? promptMatchOf(agentRow ?? promptRow, pending) : null,
  };
}
