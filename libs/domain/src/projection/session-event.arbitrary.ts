import fc from 'fast-check';
import type { SessionEvent } from '../events/session.events.js';
import type { MessageRow } from '../messages/message-row.js';

/**
 * Random but plausible session histories for property tests: a few run ids and texts so runs, seqs, row ids
 * and contents collide often, times that grow with the position, and any event in any place (also the out of
 * place ones a projection must survive: a settle before its submission, a decision for an unknown run…).
 */
const runIds = ['r1', 'r2', 'r3'];
const texts = ['hi', 'hello', 'question', 'answer', 'Done', 'more text here'];

const rowArb = fc.record({
  role: fc.constantFrom<MessageRow['role']>('user', 'assistant', 'tool'),
  content: fc.constantFrom(...texts),
  offset: fc.integer({ min: -3, max: 3 }),
});

type Step = (time: number) => SessionEvent;

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.array(rowArb, { minLength: 1, maxLength: 3 }).map((rows): Step => (time) => ({
    type: 'MessagesRecorded',
    data: { rows: rows.map(({ role, content, offset }) => ({ role, content, timestamp: time + offset })) },
  })),
  fc.record({ runId: fc.constantFrom(...runIds), text: fc.constantFrom(...texts) }).map(({ runId, text }): Step => (time) => ({
    type: 'UserMessageSubmitted',
    data: { runId, text, attachments: [], source: null, submittedAt: time },
  })),
  fc.record({ runId: fc.constantFrom(...runIds), seq: fc.integer({ min: 1, max: 6 }), event: fc.constantFrom('token', 'token', 'tool', 'done', 'cancel', 'interim_assistant'), text: fc.constantFrom(...texts) }).map(
    ({ runId, seq, event, text }): Step => (time) => ({
      type: 'JournalEventRecorded',
      data: { runId, seq, event, payload: { text, name: 'tool' }, createdAt: time },
    }),
  ),
  fc.record({ runId: fc.constantFrom(...runIds), rows: fc.array(rowArb, { maxLength: 3 }) }).map(({ runId, rows }): Step => (time) => ({
    type: 'TurnSettled',
    data: { runId, rows: rows.map(({ role, content, offset }) => ({ role, content, timestamp: time + offset })), settledAt: time },
  })),
  fc.array(fc.record({ rowId: fc.integer({ min: 1, max: 8 }), row: rowArb, active: fc.boolean() }), { minLength: 1, maxLength: 3 }).map(
    (rows): Step => (time) => ({
      type: 'StateRowsObserved',
      data: {
        rows: rows.map(({ rowId, row, active }) => ({ role: row.role, content: row.content, timestamp: time + row.offset + 0.5, rowId, active })),
        observedAt: time,
      },
    }),
  ),
  fc.record({ keepCount: fc.integer({ min: 0, max: 6 }), reason: fc.constantFrom('edit', 'retry', 'undo', 'clear', 'compress' as const) }).map(
    ({ keepCount, reason }): Step => (time) => ({ type: 'TranscriptTruncated', data: { keepCount, reason, at: time } }),
  ),
  fc.option(fc.constantFrom(...runIds)).map((runId): Step => (time) => ({
    type: 'TurnInterrupted',
    data: { runId: runId ?? null, cause: 'process_restart', detectedAt: time, evidence: { now: time } },
  })),
  fc.constantFrom(...runIds).map((runId): Step => (time) => ({ type: 'TurnRecoveredFromAgentStore', data: { runId, detectedAt: time } })),
  fc.constantFrom(...runIds).map((runId): Step => (time) => ({ type: 'JournalRecoveryAbandoned', data: { runId, at: time, reason: 'gave up' } })),
);

export const sessionHistoryArb: fc.Arbitrary<SessionEvent[]> = fc.array(stepArb, { maxLength: 40 }).map((steps) => [
  { type: 'SessionStarted', data: { sessionId: 's1', title: null, parentSessionId: null, createdAt: 1000 } },
  ...steps.map((step, index) => step(1000 + index * 10)),
]);
