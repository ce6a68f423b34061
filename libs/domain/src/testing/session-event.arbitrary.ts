import fc from 'fast-check';
import type { SessionEvent } from '../events/session.events.js';
import type { MessageRow, StateRow } from '../messages/message-row.js';

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

const stepArbs = [
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
  fc.constantFrom(...runIds).map((runId): Step => (time) => ({ type: 'TurnRecoveredFromAgentStore', data: { runId, detectedAt: time, evidence: {} } })),
  fc.constantFrom(...runIds).map((runId): Step => (time) => ({ type: 'JournalRecoveryAbandoned', data: { runId, at: time, reason: 'gave up' } })),
] as const;

const started: SessionEvent = { type: 'SessionStarted', data: { sessionId: 's1', title: null, parentSessionId: null, createdAt: 1000 } };

export const sessionHistoryArb: fc.Arbitrary<SessionEvent[]> = fc.array(fc.oneof(...stepArbs), { maxLength: 40 }).map((steps) => [
  started,
  ...steps.map((step, index) => step(1000 + index * 10)),
]);

/**
 * The agent store as the reference sees it, added to the steps above: after a turn it holds copies of the
 * committed rows (new row ids, timestamps a fraction of a second later, the workspace prefix on user rows,
 * provider bytes on most answers), compacts rows (`active: false`), rewrites one, and carries now and then what
 * the merge treats specially (a stable id, display metadata, tool calls, no timestamp, an image). Turns are
 * whole (submit, tokens, settle) as often as scattered events, so long runs of commits take the same paths as
 * a real session.
 */
type Memory = { committed: MessageRow[]; stateRows: StateRow[]; nextRowId: number; turn: number };
type AgentStep = (time: number, memory: Memory) => SessionEvent[];

const extraArb = fc.constantFrom<Partial<StateRow>>(
  {},
  {},
  {},
  {},
  { id: 'stable-1' },
  { meta: { tokens: 3 } },
  { toolCalls: [{ id: 'c1', name: 'search' }] },
  { timestamp: null },
  { content: [{ type: 'text', text: 'hi' }, { type: 'image_url', imageUrl: { url: 'u' } }] },
);

const mirrorArb = fc.record({
  count: fc.integer({ min: 1, max: 4 }),
  api: fc.constantFrom('none', 'answers', 'all', 'other'),
  lag: fc.constantFrom(0, 0.25, 0.5, 1.5),
  prefix: fc.boolean(),
  extra: extraArb,
});

const agentStepArbs = [
  // A whole turn: submit, a few tokens, settle with the prompt and an answer (repeated answers are common).
  fc.record({ runId: fc.constantFrom('t1', 't2', 't3', 't4', 't5'), text: fc.constantFrom(...texts), answer: fc.constantFrom('answer', 'Done', 'answer') }).map(
    ({ runId, text, answer }): AgentStep =>
      (time, memory) => {
        memory.turn += 1;
        const id = `${runId}-${memory.turn}`;
        const rows: MessageRow[] = [
          { role: 'user', content: text, timestamp: time },
          { role: 'assistant', content: answer, timestamp: time + 2 },
        ];
        memory.committed.push(...rows);
        return [
          { type: 'UserMessageSubmitted', data: { runId: id, text, attachments: [], source: null, submittedAt: time } },
          { type: 'JournalEventRecorded', data: { runId: id, seq: 1, event: 'token', payload: { text: answer }, createdAt: time + 1 } },
          { type: 'TurnSettled', data: { runId: id, rows, settledAt: time + 3 } },
        ];
      },
  ),
  // The agent store's copy of the last committed rows.
  mirrorArb.map(
    ({ count, api, lag, prefix, extra }): AgentStep =>
      (time, memory) => {
        const source = memory.committed.slice(-count);
        if (source.length === 0) return [];
        const rows = source.map((row, index): StateRow => {
          const text = typeof row.content === 'string' ? row.content : '';
          const withApi = api === 'all' || (api === 'answers' && row.role === 'assistant');
          return {
            ...row,
            content: prefix && row.role === 'user' ? `[Workspace::v1: /w]\n${text}` : text,
            timestamp: typeof row.timestamp === 'number' ? row.timestamp + lag : time,
            rowId: memory.nextRowId++,
            active: true,
            ...(withApi ? { apiContent: `${text}!` } : api === 'other' ? { apiContent: 'other bytes' } : {}),
            ...(index === source.length - 1 ? extra : {}),
          };
        });
        memory.stateRows.push(...rows);
        return [{ type: 'StateRowsObserved', data: { rows, observedAt: time } }];
      },
  ),
  // Compaction: some known rows become inactive; or one is rewritten.
  fc.record({ count: fc.integer({ min: 1, max: 3 }), rewrite: fc.boolean() }).map(
    ({ count, rewrite }): AgentStep =>
      (time, memory) => {
        const known = memory.stateRows.slice(0, count);
        if (known.length === 0) return [];
        const rows = rewrite ? [{ ...known[0], content: 'rewritten' }] : known.map((row) => ({ ...row, active: false }));
        return [{ type: 'StateRowsObserved', data: { rows, observedAt: time } }];
      },
  ),
  // An agent-only row (a gateway turn) with a fresh row id.
  fc.record({ row: rowArb, extra: extraArb }).map(
    ({ row, extra }): AgentStep =>
      (time, memory) => {
        const stateRow: StateRow = { role: row.role, content: row.content, timestamp: time + row.offset, rowId: memory.nextRowId++, active: true, ...extra };
        memory.stateRows.push(stateRow);
        return [{ type: 'StateRowsObserved', data: { rows: [stateRow], observedAt: time } }];
      },
  ),
  // Rows the UI records between turns (some carry a row id: the next agent row's, or a known one).
  fc.record({ row: rowArb, rowId: fc.constantFrom('none', 'none', 'next', 'known') }).map(
    ({ row, rowId }): AgentStep =>
      (time, memory) => {
        const known = memory.stateRows.at(-1)?.rowId;
        const carried = rowId === 'next' ? memory.nextRowId : rowId === 'known' ? known : undefined;
        const recorded: MessageRow = { role: row.role, content: row.content, timestamp: time + row.offset, ...(carried === undefined ? {} : { rowId: carried }) };
        memory.committed.push(recorded);
        return [{ type: 'MessagesRecorded', data: { rows: [recorded] } }];
      },
  ),
  // An interrupted turn: a token, the decision, then the rest of the journal arrives late (sometimes `done`).
  fc.record({ text: fc.constantFrom(...texts), late: fc.integer({ min: 0, max: 3 }), done: fc.boolean(), cause: fc.constantFrom('recovered', 'interrupted') }).map(
    ({ text, late, done, cause }): AgentStep =>
      (time, memory) => {
        memory.turn += 1;
        const id = `i-${memory.turn}`;
        const journal = (seq: number, event: string, at: number): SessionEvent => ({
          type: 'JournalEventRecorded',
          data: { runId: id, seq, event, payload: { text: `part ${seq} ` }, createdAt: at },
        });
        memory.committed.push({ role: 'user', content: text, timestamp: time });
        const decision: SessionEvent =
          cause === 'interrupted'
            ? { type: 'TurnInterrupted', data: { runId: id, cause: 'process_restart', detectedAt: time + 5, evidence: { now: time + 5 } } }
            : { type: 'TurnRecoveredFromAgentStore', data: { runId: id, detectedAt: time + 5, evidence: {} } };
        return [
          { type: 'UserMessageSubmitted', data: { runId: id, text, attachments: [], source: null, submittedAt: time } },
          journal(1, 'token', time + 1),
          decision,
          ...Array.from({ length: late }, (_, index) => journal(index + 2, 'token', time + 6 + index)),
          ...(done ? [journal(late + 2, 'done', time + 9)] : []),
        ];
      },
  ),
] as const;

const anyAgentStep: fc.Arbitrary<AgentStep> = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(...stepArbs).map((step): AgentStep => (time) => [step(time)]) },
  { weight: 3, arbitrary: agentStepArbs[0] },
  { weight: 3, arbitrary: agentStepArbs[1] },
  { weight: 1, arbitrary: agentStepArbs[2] },
  { weight: 1, arbitrary: agentStepArbs[3] },
  { weight: 1, arbitrary: agentStepArbs[4] },
  { weight: 2, arbitrary: agentStepArbs[5] },
);

export const agentStoreHistoryArb: fc.Arbitrary<SessionEvent[]> = fc.array(anyAgentStep, { maxLength: 40 }).map((steps) => {
  const memory: Memory = { committed: [], stateRows: [], nextRowId: 100, turn: 0 };
  return [started, ...steps.flatMap((step, index) => step(1000 + index * 10, memory))];
});
