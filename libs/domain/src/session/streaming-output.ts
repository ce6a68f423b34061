import { materialiseJournal } from '../journal/journal-output.materialiser.js';
import type { ToolCard } from '../messages/message-row.js';
import { runOf, type SessionState } from '../session-state/session.state.js';

/** What the pending turn's journal has produced so far (the contract's `streaming`): display-only, never hashed. */
export interface StreamingOutput {
  readonly runId: string;
  readonly text: string;
  readonly reasoning: string;
  readonly toolCards: readonly ToolCard[];
}

/**
 * The pending turn's output as its journal stands, read by the same materialisation a recovery uses (§3.7),
 * so what a watcher sees while the turn streams is what a recovery would keep of it. The text of successive
 * assistant rows is joined by a blank line; tool cards point at no row (the rows do not exist yet). Null when
 * no turn is pending.
 */
export function streamingOutputOf(state: SessionState): StreamingOutput | null {
  const pending = state.pending;
  if (pending === null) return null;
  const journal = runOf(state, pending.runId)?.journal ?? [];
  const { rows, toolCards } = materialiseJournal({
    runId: pending.runId,
    events: journal,
    rows: [],
    context: [],
    toolCards: [],
    dedupeExisting: false,
    pending: null,
    fallbackTimestamp: Math.trunc(pending.submittedAt),
  });
  const texts = (pick: (row: (typeof rows)[number]) => unknown): string =>
    rows
      .map(pick)
      .filter((text): text is string => typeof text === 'string' && text !== '')
      .join('\n\n');
  return {
    runId: pending.runId,
    text: texts((row) => row.content),
    reasoning: texts((row) => row.reasoning),
    toolCards: toolCards.map((card) => ({ ...card, assistantMessageIndex: null })),
  };
}
