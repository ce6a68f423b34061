import { canSupersede } from './marker-supersede.policy.js';
import { runOf, storedRunOf, type RunOutcome, type SessionState } from '../session-state/session.state.js';
import { DomainError } from '../errors/domain.error.js';
import { requireOpenSession, requireSession, validated } from './decider.guards.js';
import { appendEvents, DUPLICATE, sessionCommandSchemas as schemas, type Decision, type SessionCommand } from './session.commands.js';
import { markerAwaitsJournal } from './decider.guards.js';

type TurnCommand = Extract<
  SessionCommand,
  { type: 'SubmitMessage' | 'SettleTurn' | 'InterruptTurn' | 'RecoverTurnFromAgentStore' | 'AbandonJournalRecovery' }
>;

const alreadyDecided = (runId: string, outcome: RunOutcome): DomainError =>
  new DomainError('TURN_ALREADY_DECIDED', `run ${runId} already ended (${outcome})`);

/**
 * The run a recovery decision acts on: the pending turn only. Deciding the same run the same way again is a
 * duplicate; a run that ended otherwise is TURN_ALREADY_DECIDED; any other run is TURN_NOT_PENDING.
 */
function recoveryDecisionTarget(state: SessionState, runId: string | null, sameOutcome: RunOutcome): string | Decision {
  requireOpenSession(state);
  const target = runId ?? state.pending?.runId ?? null;
  const outcome = target === null ? null : (storedRunOf(state, target)?.outcome ?? null);
  if (target !== null && outcome === sameOutcome) return DUPLICATE;
  if (target !== null && outcome !== null) throw alreadyDecided(target, outcome);
  if (target === null || state.pending?.runId !== target) {
    throw new DomainError('TURN_NOT_PENDING', `run ${target ?? '(none)'} is not the pending turn`);
  }
  return target;
}

export function decideTurnCommand(command: TurnCommand, state: SessionState): Decision {
  switch (command.type) {
    case 'SubmitMessage': {
      const data = validated(schemas.SubmitMessage, command.data);
      requireSession(state);
      // A repeat is a duplicate whatever happened since (the session compressed, say), as a repeated settle is.
      const run = storedRunOf(state, data.runId);
      if (run?.submitted || run?.outcome != null) return DUPLICATE;
      requireOpenSession(state);
      // One turn at a time, as the UI and the worker assume: a second prompt waits for the first to end.
      if (state.pending !== null) {
        throw new DomainError('TURN_IN_PROGRESS', `run ${state.pending.runId} is still pending`);
      }
      return appendEvents({ type: 'UserMessageSubmitted', data });
    }
    case 'SettleTurn': {
      const data = validated(schemas.SettleTurn, command.data);
      requireSession(state);
      const run = storedRunOf(state, data.runId);
      // A settle finishes a submitted turn: one for a run nobody submitted would invent a turn.
      if (!run?.submitted) throw new DomainError('RUN_NOT_FOUND', `run ${data.runId} was never submitted in this session`);
      const outcome = run.outcome;
      if (outcome === 'settled') return DUPLICATE;
      if (outcome === 'recovered_from_agent_store') throw alreadyDecided(data.runId, outcome);
      if (outcome === 'interrupted' && !canSupersede(state, data.runId)) throw alreadyDecided(data.runId, outcome);
      return appendEvents({ type: 'TurnSettled', data });
    }
    case 'InterruptTurn': {
      const data = validated(schemas.InterruptTurn, command.data);
      const target = recoveryDecisionTarget(state, data.runId, 'interrupted');
      if (typeof target !== 'string') return target;
      return appendEvents({ type: 'TurnInterrupted', data });
    }
    case 'RecoverTurnFromAgentStore': {
      const data = validated(schemas.RecoverTurnFromAgentStore, command.data);
      const target = recoveryDecisionTarget(state, data.runId, 'recovered_from_agent_store');
      if (typeof target !== 'string') return target;
      return appendEvents({ type: 'TurnRecoveredFromAgentStore', data });
    }
    case 'AbandonJournalRecovery': {
      const data = validated(schemas.AbandonJournalRecovery, command.data);
      requireOpenSession(state);
      const run = runOf(state, data.runId);
      if (run?.interruption?.abandoned) return DUPLICATE;
      if (run === undefined || !markerAwaitsJournal(run)) {
        throw new DomainError('MARKER_NOT_PENDING', `run ${data.runId} has no marker waiting for its journal`);
      }
      return appendEvents({ type: 'JournalRecoveryAbandoned', data });
    }
  }
}
