import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { executeSessionCommand, SessionWriter, type WriteResult } from '#session-commands';
import { ExecuteSessionCommand } from './execute-session-command.command.js';

@CommandHandler(ExecuteSessionCommand)
export class ExecuteSessionCommandHandler implements ICommandHandler<ExecuteSessionCommand> {
  constructor(private readonly writer: SessionWriter) {}

  execute({ sessionId, command, options }: ExecuteSessionCommand): Promise<WriteResult> {
    return executeSessionCommand(this.writer, sessionId, command, options);
  }
}
