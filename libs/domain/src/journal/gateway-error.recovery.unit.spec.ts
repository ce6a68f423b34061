import type { JournalEvent, MessageRow } from '../messages/message-row.js';
import { recoverGatewayTerminalError } from './gateway-error.recovery.js';
import { type GatewayErrorInput, type PendingTurn } from './journal.types.js';
import { journalEvents } from '../testing/journal-events.builder.js';

const SID = 'sess-1';
const RUN = 'run-1';
const ev = journalEvents(10);
const errorMessage = {
  role: 'assistant',
  content: 'Gateway failed: quota exceeded',
  _error: true,
  timestamp: 1234.5,
  _turnDuration: 2,
};
const userMessage = { role: 'user', content: 'q' };
const payload = (patch: Record<string, unknown> = {}, messages: unknown[] = [userMessage, errorMessage]) => ({
  type: 'errored',
  session_id: SID,
  session: { session_id: SID, messages },
  terminal_session_persisted: false,
  ...patch,
});
const journal = (apperror: JournalEvent['payload'] = payload()) => [
  ev(1, 'token', { text: 'partial' }),
  ev(3, 'apperror', apperror),
  ev(2, 'tool'),
  ev(4, 'stream_end'),
];
const pending: PendingTurn = { text: 'q', submittedAt: 50.2 };
const prompt: MessageRow = { role: 'user', content: 'q', timestamp: 50 };
const recover = (input: Partial<GatewayErrorInput> = {}) =>
  recoverGatewayTerminalError({ sessionId: SID, runId: RUN, events: journal(), rows: [prompt], pending, ...input });
const tagged: MessageRow = {
  role: 'assistant',
  content: 'Gateway failed: quota exceeded',
  timestamp: 1234.5,
  error: true,
  meta: { turnDuration: 2 },
  recoveredFromRunJournal: true,
  recoveredRunId: RUN,
  recoveredEventId: 'run-1:3',
};
const notRecovered = { rows: [prompt], recovered: false, eventId: null };

describe('a gateway terminal error (§3.8)', () => {
  it('is appended as a tagged camelCase row when every check holds', () => {
    expect(recover()).toEqual({ rows: [prompt, tagged], recovered: true, eventId: 'run-1:3' });
  });

  it('is recovered when the gateway persisted a different session', () => {
    const events = journal(payload({ terminal_session_persisted: true, terminal_session_persisted_session_id: 'other' }));
    expect(recover({ events }).rows).toEqual([prompt, tagged]);
  });

  it('is not added twice for the same event', () => {
    expect(recover({ rows: [prompt, tagged] })).toEqual({ rows: [prompt, tagged], recovered: true, eventId: 'run-1:3' });
  });

  it('tags the turn own copy of the error instead of adding one', () => {
    const copy: MessageRow = { role: 'assistant', content: 'Gateway failed: quota exceeded', error: true, timestamp: 60 };
    const other: MessageRow = { ...copy, recoveredRunId: 'run-0' };
    expect(recover({ rows: [prompt, copy, other] }).rows).toEqual([
      prompt,
      { ...copy, recoveredFromRunJournal: true, recoveredRunId: RUN, recoveredEventId: 'run-1:3' },
      other,
    ]);
  });

  it('does not tag a copy from before the turn, nor one of another run, nor any copy without a pending turn', () => {
    const copy: MessageRow = { role: 'assistant', content: 'Gateway failed: quota exceeded', error: true };
    expect([
      recover({ rows: [copy, prompt] }).rows,
      recover({ rows: [prompt, { ...copy, recoveredRunId: 'run-0' }] }).rows,
      recover({ rows: [prompt, copy], pending: null }).rows,
    ]).toEqual([
      [copy, prompt, tagged],
      [prompt, { ...copy, recoveredRunId: 'run-0' }, tagged],
      [prompt, copy, tagged],
    ]);
  });

  it.each<[string, readonly JournalEvent[]]>([
    ['no apperror was journaled', [ev(1, 'token', { text: 'x' }), ev(2, 'stream_end')]],
    ['a later done is authoritative', [...journal(), ev(5, 'done')]],
    ['the terminal event is an error, not an apperror', [ev(1, 'error', payload())]],
    ['the payload names another session', journal(payload({ session_id: 'other' }))],
    ['the payload names no session', journal(payload({ session_id: undefined }))],
    ['the embedded session is another one', journal(payload({ session: { session_id: 'other', messages: [errorMessage] } }))],
    ['the embedded session is missing', journal(payload({ session: null }))],
    [
      'the gateway persisted this session itself',
      journal(payload({ terminal_session_persisted: true, terminal_session_persisted_session_id: SID })),
    ],
    ['the embedded messages have no user row', journal(payload({}, [errorMessage]))],
    ['the error row precedes the last user row', journal(payload({}, [errorMessage, userMessage]))],
    ['the last turn has no error row', journal(payload({}, [userMessage, { ...errorMessage, _error: undefined }]))],
    ['the error flag is not true', journal(payload({}, [userMessage, { ...errorMessage, _error: 'true' }]))],
    ['the error row is blank', journal(payload({}, [userMessage, { ...errorMessage, content: ' \n ' }]))],
    [
      'the error content is not a string',
      journal(payload({}, [userMessage, { ...errorMessage, content: [{ type: 'text', text: 'x' }] }])),
    ],
    ['the error row is a user row', journal(payload({}, [userMessage, { ...errorMessage, role: 'user' }]))],
    ['the apperror has an invalid seq', [{ ...ev(0, 'apperror', payload()) }, ev(1, 'stream_end')]],
  ])('is not recovered when %s', (_reason, events) => {
    expect(recover({ events })).toEqual(notRecovered);
  });

  it('is not recovered for a stream of another session', () => {
    expect(recover({ sessionId: 'sess-2' })).toEqual(notRecovered);
  });
});
