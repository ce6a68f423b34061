import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide } from '#domain';
import { SessionWriter, type WriteResult } from '#session-commands';
import { ExecuteSessionCommand } from './execute-session-command.command.js';

@CommandHandler(ExecuteSessionCommand)
export class ExecuteSessionCommandHandler implements ICommandHandler<ExecuteSessionCommand> {
  constructor(private readonly writer: SessionWriter) {}

  execute({ sessionId, command, options }: ExecuteSessionCommand): Promise<WriteResult> {
    // The decider is the one home of every rule: a repeated start with the same attributes is a duplicate (200),
    // with others a SESSION_ALREADY_EXISTS conflict (409).
    return this.writer.write(sessionId, ({ state }) => decide(command, state), {
      ...options,
      creates: command.type === 'StartSession',
    });
  }
}
