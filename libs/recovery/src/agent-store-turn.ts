import {
  evolve,
  render,
  type MessageRow,
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
 *    message, so adopting them never loses it (text compared with the workspace prefix stripped and
 *    whitespace collapsed), and
 * 3. the prompt and its answer are rows of this turn: the last row showing the prompt and an assistant row
 *    after it (neither an error nor a marker, with text or tool calls) are both stamped at or after the
 *    submission's second. Rows of earlier turns with the same text (a repeated prompt) do not count.
 * 3 is stricter than the reference, which adopts whenever the merge grows: a worker that died right after
 * storing the prompt gets `TurnInterrupted` (a marker, journal recovery) instead of a silent prompt-only
 * transcript, and an old identical exchange never swallows a new prompt.
 */
export interface AgentStoreCheck {
  readonly holdsTurn: boolean;
  readonly shownRows: number;
  readonly adoptedRows: number;
  readonly promptShown: number;
  readonly promptAdopted: number;
  readonly promptIndex: number | null;
  readonly answerIndex: number | null;
}

const WORKSPACE_PREFIX = /^\s*\[Workspace(?:::v1)?: (?:\\[\s\S]|[^\]\\])*\]\s*/u;

const normalise = (text: string): string => text.replace(WORKSPACE_PREFIX, '').replace(/\s+/gu, ' ').trim();

function textOf(row: MessageRow): string {
  const content = row.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part) => part.type === 'text' && typeof part['text'] === 'string')
    .map((part) => part['text'] as string)
    .join('\n');
}

const isPrompt = (row: MessageRow, prompt: string): boolean => row.role === 'user' && normalise(textOf(row)) === prompt;

const isAnswer = (row: MessageRow): boolean =>
  row.role === 'assistant' &&
  row.error !== true &&
  row.type !== 'interrupted' &&
  (textOf(row).trim() !== '' || (row.toolCalls?.length ?? 0) > 0);

export function checkAgentStore(state: SessionState, shownView: SessionView, detectedAt: number): AgentStoreCheck {
  const pending = state.pending;
  const shown = shownView.display;
  const none = { holdsTurn: false, shownRows: shown.length, adoptedRows: shown.length, promptShown: 0, promptAdopted: 0, promptIndex: null, answerIndex: null };
  if (pending === null || state.stateRows.every((row) => row.active === false)) return none;
  const adopted = render(evolve(state, { type: 'TurnRecoveredFromAgentStore', data: { runId: pending.runId, detectedAt } })).display;
  const prompt = normalise(pending.text);
  const promptShown = shown.filter((row) => isPrompt(row, prompt)).length;
  const promptAdopted = adopted.filter((row) => isPrompt(row, prompt)).length;
  const turnStart = Math.trunc(pending.submittedAt);
  const inTurn = (row: MessageRow): boolean => typeof row.timestamp === 'number' && row.timestamp >= turnStart;
  const promptIndex = adopted.findLastIndex((row) => isPrompt(row, prompt) && inTurn(row));
  const answer = promptIndex < 0 ? -1 : adopted.findIndex((row, index) => index > promptIndex && isAnswer(row) && inTurn(row));
  const holdsTurn = adopted.length > shown.length - 1 && promptAdopted >= promptShown && promptIndex >= 0 && answer >= 0;
  return {
    holdsTurn,
    shownRows: shown.length,
    adoptedRows: adopted.length,
    promptShown,
    promptAdopted,
    promptIndex: promptIndex >= 0 ? promptIndex : null,
    answerIndex: answer >= 0 ? answer : null,
  };
}
