import type { SessionEvent } from '../events/session.events.js';
import { evolveAll } from '../projection/session.evolve.js';
import {
  assistant,
  compressed,
  observed,
  recorded,
  started,
  stateRow,
  submitted,
  tokens,
  user,
} from '../testing/session.fixtures.js';
import { initialSessionState } from '../projection/session.state.js';
import { decide } from './session.decider.js';
import type { SessionCommand } from './session.commands.js';

const given = (...events: SessionEvent[]) => evolveAll(initialSessionState(), events);
const codeOf = (command: SessionCommand, events: SessionEvent[]): string | undefined => {
  try {
    decide(command, given(...events));
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
};
const settle = (runId: string, rows = [user('question', 1010), assistant('answer', 1012)]): SessionCommand => ({
  type: 'SettleTurn',
  data: { runId, rows, settledAt: 1013 },
});
const submit = (runId: string, text = 'question'): SessionCommand => ({ type: 'SubmitMessage', data: { runId, text, submittedAt: 1010 } });
const interrupt = (runId: string | null): SessionCommand => ({
  type: 'InterruptTurn',
  data: { runId, cause: 'lost_worker_bookkeeping', detectedAt: 1100, evidence: {} },
});
const pending = [started(), recorded(user('hi', 1001)), submitted('r1', 'question', 1010)];

describe('starting a session', () => {
  it('records SessionStarted with its defaults', () => {
    expect(decide({ type: 'StartSession', data: { sessionId: 's1', createdAt: 5 } }, given())).toEqual({
      events: [{ type: 'SessionStarted', data: { sessionId: 's1', title: null, parentSessionId: null, createdAt: 5 } }],
      duplicate: false,
    });
  });

  it('is a duplicate when the same session exists', () => {
    expect(decide({ type: 'StartSession', data: { sessionId: 's1', createdAt: 9 } }, given(started('s1')))).toEqual({ events: [], duplicate: true });
  });

  it('refuses other attributes for an existing session', () => {
    expect(codeOf({ type: 'StartSession', data: { sessionId: 's1', title: 'Other', createdAt: 9 } }, [started('s1')])).toBe('SESSION_ALREADY_EXISTS');
  });

  it('refuses bad data naming every field', () => {
    expect(() => decide({ type: 'StartSession', data: { sessionId: 'bad id', createdAt: -1 } }, given())).toThrow(
      expect.objectContaining({ code: 'VALIDATION', errors: [expect.objectContaining({ path: 'sessionId' }), expect.objectContaining({ path: 'createdAt' })] }),
    );
  });
});

describe('every command but StartSession', () => {
  it.each<SessionCommand>([
    { type: 'RecordMessages', data: { rows: [user('x', 1)] } },
    submit('r1'),
    settle('r1'),
    { type: 'RecordJournalEvents', data: { runId: 'r1', events: [{ seq: 1, event: 'token', payload: {}, createdAt: 1 }] } },
    { type: 'ObserveStateRows', data: { rows: [stateRow(1, user('x', 1))], observedAt: 2 } },
    { type: 'TruncateTranscript', data: { keepCount: 0, reason: 'clear', at: 3 } },
    { type: 'CompressSession', data: { childSessionId: 'c', at: 4 } },
    interrupt('r1'),
  ])('refuses $type on a session never started', (command) => {
    expect(codeOf(command, [])).toBe('SESSION_NOT_FOUND');
  });
});

describe('recording journal events', () => {
  const command = (seqs: number[]): SessionCommand => ({
    type: 'RecordJournalEvents',
    data: { runId: 'r1', events: seqs.map((seq) => ({ seq, event: 'token', payload: { text: `${seq}` }, createdAt: 1 })) },
  });

  it('records one event per new (runId, seq), dropping repeats within the batch', () => {
    const decision = decide(command([2, 3, 3, 4]), given(...pending, ...tokens('r1', 1, ['a', 'b'], 1011)));
    expect(decision.events.map((event) => (event.type === 'JournalEventRecorded' ? event.data.seq : 0))).toEqual([3, 4]);
  });

  it('is a duplicate when every seq is known', () => {
    expect(decide(command([1, 2]), given(...pending, ...tokens('r1', 1, ['a', 'b'], 1011))).duplicate).toBe(true);
  });

  it('refuses more than 1000 events', () => {
    expect(codeOf(command(Array.from({ length: 1001 }, (_, index) => index + 1)), pending)).toBe('VALIDATION');
  });
});

describe('observing state rows', () => {
  const known = [...pending, observed([stateRow(1, user('hi', 1001))], 1005)];

  it('is a duplicate when every row id is seen with identical content', () => {
    expect(decide({ type: 'ObserveStateRows', data: { rows: [stateRow(1, user('hi', 1001))], observedAt: 1006 } }, given(...known)).duplicate).toBe(true);
  });

  it('records only rows that are new or changed', () => {
    const rows = [stateRow(1, user('hi', 1001)), stateRow(1, user('hi', 1001), { active: false }), stateRow(2, assistant('x', 1002))];
    const decision = decide({ type: 'ObserveStateRows', data: { rows, observedAt: 1006 } }, given(...known));
    expect(decision.events).toEqual([{ type: 'StateRowsObserved', data: { rows: [rows[1], rows[2]], observedAt: 1006 } }]);
  });
});

describe('truncating', () => {
  it('refuses a keepCount beyond the committed display', () => {
    expect(codeOf({ type: 'TruncateTranscript', data: { keepCount: 2, reason: 'edit', at: 2000 } }, pending)).toBe('KEEP_COUNT_OUT_OF_RANGE');
  });
});

describe('compressing', () => {
  it('is a duplicate for the same child and refused for another', () => {
    const events = [started(), compressed('c1', 2000)];
    expect(decide({ type: 'CompressSession', data: { childSessionId: 'c1', at: 2001 } }, given(...events)).duplicate).toBe(true);
    expect(codeOf({ type: 'CompressSession', data: { childSessionId: 'c2', at: 2001 } }, events)).toBe('SESSION_ARCHIVED');
  });
});
