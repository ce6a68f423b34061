import { decide, type SessionCommand } from '#domain';
import type { SessionWriter, WriteOptions, WriteResult } from './session-writer.js';

/**
 * One domain command for one session, decided by the pure decider and appended by the writer. The decider is
 * the one home of every rule: a repeated start with the same attributes is a duplicate, with others a
 * SESSION_ALREADY_EXISTS conflict.
 */
export function executeSessionCommand(
  writer: SessionWriter,
  sessionId: string,
  command: SessionCommand,
  options: WriteOptions = {},
): Promise<WriteResult> {
  return writer.write(sessionId, ({ state }) => decide(command, state), { ...options, creates: command.type === 'StartSession' });
}
