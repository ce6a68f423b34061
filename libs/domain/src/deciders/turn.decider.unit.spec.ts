import type { SessionEvent } from '../events/session.events.js';
import { evolveAll } from '../projection/session.evolve.js';
import {
  assistant,
  compressed,
  interrupted,
  journal,
  recorded,
  recoveredFromAgentStore,
  settled,
  started,
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

describe('submitting a message', () => {
  it('records the pending turn', () => {
    expect(decide(submit('r1'), given(started())).events).toEqual([
      { type: 'UserMessageSubmitted', data: { runId: 'r1', text: 'question', attachments: [], source: null, submittedAt: 1010 } },
    ]);
  });

  it('is a duplicate for a run id already submitted', () => {
    expect(decide(submit('r1'), given(...pending)).duplicate).toBe(true);
  });

  it('refuses a second turn while one is pending', () => {
    expect(codeOf(submit('r2', 'other'), pending)).toBe('TURN_IN_PROGRESS');
  });

  it('refuses a turn on an archived session', () => {
    expect(codeOf(submit('r2'), [started(), compressed('c1', 2000)])).toBe('SESSION_ARCHIVED');
  });
});

describe('settling a turn', () => {
  it('refuses a run that was never submitted (RUN_NOT_FOUND) and records nothing', () => {
    expect(codeOf(settle('r9'), pending)).toBe('RUN_NOT_FOUND');
    expect(codeOf(settle('r1'), [started(), recorded(user('hi', 1001))])).toBe('RUN_NOT_FOUND');
  });

  it('records TurnSettled for the pending run', () => {
    expect(decide(settle('r1'), given(...pending)).events.map((event) => event.type)).toEqual(['TurnSettled']);
  });

  it('is a duplicate once settled', () => {
    expect(decide(settle('r1'), given(...pending, settled('r1', [user('question', 1010)], 1011)))).toEqual({ events: [], duplicate: true });
  });

  it('supersedes the marker of its own interrupted turn where §3.10 allows', () => {
    expect(decide(settle('r1'), given(...pending, interrupted('r1', 1100))).events).toHaveLength(1);
  });

  it('is refused after a newer row follows the marker', () => {
    expect(codeOf(settle('r1'), [...pending, interrupted('r1', 1100), recorded(user('later', 1200))])).toBe('TURN_ALREADY_DECIDED');
  });

  it('is refused after the turn was settled from its completed journal', () => {
    const events = [...pending, interrupted('r1', 1100), ...tokens('r1', 1, ['done text'], 1011), journal('r1', 2, 'done', {}, 1012)];
    expect(codeOf(settle('r1'), events)).toBe('TURN_ALREADY_DECIDED');
  });

  it('is refused after the turn was recovered from the agent store', () => {
    expect(codeOf(settle('r1'), [...pending, recoveredFromAgentStore('r1', 1100)])).toBe('TURN_ALREADY_DECIDED');
  });
});

describe('recovery decisions', () => {
  it('interrupt the pending turn, even when it is named by null', () => {
    expect(decide(interrupt(null), given(...pending)).events).toEqual([
      { type: 'TurnInterrupted', data: { runId: null, cause: 'lost_worker_bookkeeping', detectedAt: 1100, evidence: {} } },
    ]);
  });

  it('are duplicates when the run was already decided the same way', () => {
    expect(decide(interrupt('r1'), given(...pending, interrupted('r1', 1100))).duplicate).toBe(true);
  });

  it('are refused for a run decided otherwise', () => {
    expect(codeOf(interrupt('r1'), [...pending, recoveredFromAgentStore('r1', 1100)])).toBe('TURN_ALREADY_DECIDED');
  });

  it('are refused for a run that is not pending', () => {
    expect(codeOf(interrupt('r9'), pending)).toBe('TURN_NOT_PENDING');
    expect(codeOf({ type: 'RecoverTurnFromAgentStore', data: { runId: 'r1', detectedAt: 1 } }, [started()])).toBe('TURN_NOT_PENDING');
  });

  it('abandon only a marker still waiting for its journal', () => {
    const abandon: SessionCommand = { type: 'AbandonJournalRecovery', data: { runId: 'r1', at: 90_000, reason: 'timeout' } };
    expect(decide(abandon, given(...pending, interrupted('r1', 1100))).events).toHaveLength(1);
    expect(codeOf(abandon, [...pending, interrupted('r1', 1100), ...tokens('r1', 1, ['x'], 1011)])).toBe('MARKER_NOT_PENDING');
    expect(codeOf(abandon, pending)).toBe('MARKER_NOT_PENDING');
  });

  it('abandon a marker whose done journal misses seq 1 (the view shows it pending_journal: one marker rule, issue 11)', () => {
    const abandon: SessionCommand = { type: 'AbandonJournalRecovery', data: { runId: 'r1', at: 90_000, reason: 'timeout' } };
    const gap = [...pending, interrupted('r1', 1100), journal('r1', 2, 'done', {}, 1012)];
    expect(decide(abandon, given(...gap)).events).toHaveLength(1);
    expect(codeOf(abandon, [...gap, journal('r1', 1, 'metering', {}, 1011)])).toBe('MARKER_NOT_PENDING');
  });
});
