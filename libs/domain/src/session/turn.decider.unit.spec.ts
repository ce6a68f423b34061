import { evolve } from './session.evolve.js';
import { initialSessionState } from '../session-state/session.state.js';
import { DeciderSpecification } from '../testing/decider.specification.js';
import {
  assistant,
  compressed,
  interrupt,
  interrupted,
  journal,
  pendingTurn,
  recorded,
  recoveredFromAgentStore,
  settle,
  settled,
  started,
  submit,
  tokens,
  user,
} from '../testing/session.fixtures.js';
import { decide } from './session.decider.js';
import type { SessionCommand } from './session.commands.js';

const given = DeciderSpecification.for({ decide, evolve, initialState: initialSessionState });
const pending = pendingTurn();

describe('submitting a message', () => {
  it('records the pending turn', () => {
    given(started())
      .when(submit('r1'))
      .then({ type: 'UserMessageSubmitted', data: { runId: 'r1', text: 'question', attachments: [], source: null, submittedAt: 1010 } });
  });

  it('is a duplicate for a run id already submitted', () => {
    given(pending).when(submit('r1')).thenDuplicate();
  });

  it('refuses a second turn while one is pending', () => {
    given(pending).when(submit('r2', 'other')).thenThrows('TURN_IN_PROGRESS');
  });

  it('refuses a turn on an archived session', () => {
    given([started(), compressed('c1', 2000)]).when(submit('r2')).thenThrows('SESSION_ARCHIVED');
  });
});

describe('settling a turn', () => {
  it('refuses a run that was never submitted (RUN_NOT_FOUND)', () => {
    given(pending).when(settle('r9')).thenThrows('RUN_NOT_FOUND');
    given([started(), recorded(user('hi', 1001))]).when(settle('r1')).thenThrows('RUN_NOT_FOUND');
  });

  it('records TurnSettled for the pending run', () => {
    given(pending).when(settle('r1')).then(settled('r1', [user('question', 1010), assistant('answer', 1012)], 1013));
  });

  it('is a duplicate once settled', () => {
    given([...pending, settled('r1', [user('question', 1010)], 1011)]).when(settle('r1')).thenDuplicate();
  });

  it('supersedes the marker of its own interrupted turn where §3.10 allows', () => {
    given([...pending, interrupted('r1', 1100)]).when(settle('r1')).then(settled('r1', [user('question', 1010), assistant('answer', 1012)], 1013));
  });

  it('is refused after a newer row follows the marker', () => {
    given([...pending, interrupted('r1', 1100), recorded(user('later', 1200))]).when(settle('r1')).thenThrows('TURN_ALREADY_DECIDED');
  });

  it('is refused after the turn was settled from its completed journal', () => {
    given([...pending, interrupted('r1', 1100), ...tokens('r1', 1, ['done text'], 1011), journal('r1', 2, 'done', {}, 1012)])
      .when(settle('r1'))
      .thenThrows('TURN_ALREADY_DECIDED');
  });

  it('is refused after the turn was recovered from the agent store', () => {
    given([...pending, recoveredFromAgentStore('r1', 1100)]).when(settle('r1')).thenThrows('TURN_ALREADY_DECIDED');
  });
});

describe('recovery decisions', () => {
  const abandon: SessionCommand = { type: 'AbandonJournalRecovery', data: { runId: 'r1', at: 90_000, reason: 'timeout' } };
  const abandoned = { type: 'JournalRecoveryAbandoned', data: { runId: 'r1', at: 90_000, reason: 'timeout' } } as const;

  it('interrupt the pending turn, even when it is named by null', () => {
    given(pending)
      .when(interrupt(null))
      .then({ type: 'TurnInterrupted', data: { runId: null, cause: 'lost_worker_bookkeeping', detectedAt: 1100, evidence: {} } });
  });

  it('are duplicates when the run was already decided the same way', () => {
    given([...pending, interrupted('r1', 1100)]).when(interrupt('r1')).thenDuplicate();
  });

  it('are refused for a run decided otherwise', () => {
    given([...pending, recoveredFromAgentStore('r1', 1100)]).when(interrupt('r1')).thenThrows('TURN_ALREADY_DECIDED');
  });

  it('are refused for a run that is not pending', () => {
    given(pending).when(interrupt('r9')).thenThrows('TURN_NOT_PENDING');
    given(started()).when({ type: 'RecoverTurnFromAgentStore', data: { runId: 'r1', detectedAt: 1 } }).thenThrows('TURN_NOT_PENDING');
  });

  it('abandon only a marker still waiting for its journal', () => {
    given([...pending, interrupted('r1', 1100)]).when(abandon).then(abandoned);
    given([...pending, interrupted('r1', 1100), ...tokens('r1', 1, ['x'], 1011)]).when(abandon).thenThrows('MARKER_NOT_PENDING');
    given(pending).when(abandon).thenThrows('MARKER_NOT_PENDING');
  });

  it('abandon a marker whose done journal misses seq 1 (the view shows it pending_journal: one marker rule, issue 11)', () => {
    const gap = [...pending, interrupted('r1', 1100), journal('r1', 2, 'done', {}, 1012)];
    given(gap).when(abandon).then(abandoned);
    given([...gap, journal('r1', 1, 'metering', {}, 1011)]).when(abandon).thenThrows('MARKER_NOT_PENDING');
  });
});
