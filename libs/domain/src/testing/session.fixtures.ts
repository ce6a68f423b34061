import type { SessionEvent } from '../events/session.events.js';
import type { SessionCommand } from '../session/session.commands.js';
import type { InterruptionCause, MessageRow, StateRow } from '../messages/message-row.js';

/** Event and row builders for given/when/then tests of the projection and the decider. */
export const user = (content: string, timestamp: number, extra: Partial<MessageRow> = {}): MessageRow => ({
  role: 'user',
  content,
  timestamp,
  ...extra,
});

export const assistant = (content: string, timestamp: number, extra: Partial<MessageRow> = {}): MessageRow => ({
  role: 'assistant',
  content,
  timestamp,
  ...extra,
});

export const stateRow = (rowId: number, row: MessageRow, extra: Partial<StateRow> = {}): StateRow => ({
  ...row,
  rowId,
  active: true,
  ...extra,
});

export const started = (sessionId = 's1', createdAt = 1000, title: string | null = null): SessionEvent => ({
  type: 'SessionStarted',
  data: { sessionId, title, parentSessionId: null, createdAt },
});

export const recorded = (...rows: MessageRow[]): SessionEvent => ({ type: 'MessagesRecorded', data: { rows } });

export const submitted = (runId: string, text: string, submittedAt: number, attachments: unknown[] = []): SessionEvent => ({
  type: 'UserMessageSubmitted',
  data: { runId, text, attachments, source: null, submittedAt },
});

export const settled = (runId: string, rows: MessageRow[], settledAt: number): SessionEvent => ({
  type: 'TurnSettled',
  data: { runId, rows, settledAt },
});

export { journal, tokens } from './journal-events.builder.js';

export const observed = (rows: StateRow[], observedAt: number): SessionEvent => ({
  type: 'StateRowsObserved',
  data: { rows, observedAt },
});

export const truncated = (
  keepCount: number,
  reason: 'edit' | 'retry' | 'undo' | 'clear' | 'compress',
  at: number,
): SessionEvent => ({ type: 'TranscriptTruncated', data: { keepCount, reason, at } });

export const interrupted = (
  runId: string | null,
  detectedAt: number,
  cause: InterruptionCause = 'lost_worker_bookkeeping',
): SessionEvent => ({ type: 'TurnInterrupted', data: { runId, cause, detectedAt, evidence: { now: detectedAt } } });

export const recoveredFromAgentStore = (runId: string, detectedAt: number): SessionEvent => ({
  type: 'TurnRecoveredFromAgentStore',
  data: { runId, detectedAt, evidence: {} },
});

export const abandoned = (runId: string, at: number): SessionEvent => ({
  type: 'JournalRecoveryAbandoned',
  data: { runId, at, reason: 'journal did not arrive within 86400 s' },
});

export const compressed = (childSessionId: string, at: number): SessionEvent => ({
  type: 'SessionCompressed',
  data: { childSessionId, at },
});

/** Command builders (imperative, beside the past-tense event builders above) for the decider specs. */
export const submit = (runId: string, text = 'question', submittedAt = 1010): SessionCommand => ({
  type: 'SubmitMessage',
  data: { runId, text, submittedAt },
});

export const settle = (runId: string, rows = [user('question', 1010), assistant('answer', 1012)], settledAt = 1013): SessionCommand => ({
  type: 'SettleTurn',
  data: { runId, rows, settledAt },
});

export const interrupt = (runId: string | null, detectedAt = 1100): SessionCommand => ({
  type: 'InterruptTurn',
  data: { runId, cause: 'lost_worker_bookkeeping', detectedAt, evidence: {} },
});

/** A started session with one committed row and the pending turn `r1` ('question' at 1010). */
export const pendingTurn = (): SessionEvent[] => [started(), recorded(user('hi', 1001)), submitted('r1', 'question', 1010)];
