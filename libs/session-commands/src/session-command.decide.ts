import { decide, DUPLICATE, type Decision, type SessionCommand, type SessionState } from '#domain';

/**
 * The decision of one domain command, as every producer makes it. Starting a session that exists is a
 * duplicate (the contract's 200), whatever the repeated body says.
 */
export function decideSessionCommand(command: SessionCommand, state: SessionState): Decision {
  if (command.type === 'StartSession' && state.sessionId !== null) return DUPLICATE;
  return decide(command, state);
}
