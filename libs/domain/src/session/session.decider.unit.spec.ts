import { DomainError } from '../errors/domain.error.js';
import { evolve } from './session.evolve.js';
import { initialSessionState } from '../session-state/session.state.js';
import { DeciderSpecification } from '../testing/decider.specification.js';
import {
  assistant,
  compressed,
  interrupt,
  journal,
  observed,
  pendingTurn,
  settle,
  started,
  stateRow,
  submit,
  tokens,
  user,
} from '../testing/session.fixtures.js';
import { decide } from './session.decider.js';
import type { SessionCommand } from './session.commands.js';

const given = DeciderSpecification.for({ decide, evolve, initialState: initialSessionState });
const pending = pendingTurn();

describe('starting a session', () => {
  it('records SessionStarted with its defaults', () => {
    given([])
      .when({ type: 'StartSession', data: { sessionId: 's1', createdAt: 5 } })
      .then({ type: 'SessionStarted', data: { sessionId: 's1', title: null, parentSessionId: null, createdAt: 5 } });
  });

  it('is a duplicate when the same session exists', () => {
    given(started('s1')).when({ type: 'StartSession', data: { sessionId: 's1', createdAt: 9 } }).thenDuplicate();
  });

  it('refuses other attributes for an existing session', () => {
    given(started('s1')).when({ type: 'StartSession', data: { sessionId: 's1', title: 'Other', createdAt: 9 } }).thenThrows('SESSION_ALREADY_EXISTS');
  });

  it('refuses bad data naming every field', () => {
    given([])
      .when({ type: 'StartSession', data: { sessionId: 'bad id', createdAt: -1 } })
      .thenThrows(DomainError, (error) => {
        expect(error).toMatchObject({ code: 'VALIDATION', errors: [expect.objectContaining({ path: 'sessionId' }), expect.objectContaining({ path: 'createdAt' })] });
      });
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
    given([]).when(command).thenThrows('SESSION_NOT_FOUND');
  });
});

describe('recording messages', () => {
  it('appends nothing for an empty batch, and is no duplicate', () => {
    given(pending).when({ type: 'RecordMessages', data: { rows: [] } }).thenNothingHappened();
  });
});

describe('recording journal events', () => {
  const command = (seqs: number[]): SessionCommand => ({
    type: 'RecordJournalEvents',
    data: { runId: 'r1', events: seqs.map((seq) => ({ seq, event: 'token', payload: { text: `${seq}` }, createdAt: 1 })) },
  });
  const twoTokens = [...pending, ...tokens('r1', 1, ['a', 'b'], 1011)];

  it('records one event per new (runId, seq), dropping repeats within the batch', () => {
    given(twoTokens)
      .when(command([2, 3, 3, 4]))
      .then([journal('r1', 3, 'token', { text: '3' }, 1), journal('r1', 4, 'token', { text: '4' }, 1)]);
  });

  it('is a duplicate when every seq is known', () => {
    given(twoTokens).when(command([1, 2])).thenDuplicate();
  });

  it('refuses more than 1000 events', () => {
    given(pending)
      .when(command(Array.from({ length: 1001 }, (_, index) => index + 1)))
      .thenThrows('VALIDATION');
  });
});

describe('observing state rows', () => {
  const known = [...pending, observed([stateRow(1, user('hi', 1001))], 1005)];

  it('is a duplicate when every row id is seen with identical content', () => {
    given(known).when({ type: 'ObserveStateRows', data: { rows: [stateRow(1, user('hi', 1001))], observedAt: 1006 } }).thenDuplicate();
  });

  it('records only rows that are new or changed', () => {
    const rows = [stateRow(1, user('hi', 1001)), stateRow(1, user('hi', 1001), { active: false }), stateRow(2, assistant('x', 1002))];
    given(known)
      .when({ type: 'ObserveStateRows', data: { rows, observedAt: 1006 } })
      .then(observed([rows[1], rows[2]], 1006));
  });
});

describe('truncating', () => {
  it('refuses a keepCount beyond the committed display', () => {
    given(pending).when({ type: 'TruncateTranscript', data: { keepCount: 2, reason: 'edit', at: 2000 } }).thenThrows('KEEP_COUNT_OUT_OF_RANGE');
  });
});

describe('compressing', () => {
  const archived = [started(), compressed('c1', 2000)];

  it('is a duplicate for the same child', () => {
    given(archived).when({ type: 'CompressSession', data: { childSessionId: 'c1', at: 2001 } }).thenDuplicate();
  });

  it('is refused for another child', () => {
    given(archived).when({ type: 'CompressSession', data: { childSessionId: 'c2', at: 2001 } }).thenThrows('SESSION_ARCHIVED');
  });
});
