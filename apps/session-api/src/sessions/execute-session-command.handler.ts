import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decide, DUPLICATE } from '#domain';
import { ExecuteSessionCommand } from './execute-session-command.command.js';
import { SessionWriter } from './session-writer.js';
import type { WriteResult } from './write-result.js';

@CommandHandler(ExecuteSessionCommand)
export class ExecuteSessionCommandHandler implements ICommandHandler<ExecuteSessionCommand> {
  constructor(private readonly writer: SessionWriter) {}

  execute({ sessionId, command, options }: ExecuteSessionCommand): Promise<WriteResult> {
    const creates = command.type === 'StartSession';
    return this.writer.write(
      sessionId,
      ({ state }) =>
        // POST /v1/sessions on an existing session is a duplicate (200), whatever its body says.
        creates && state.sessionId !== null ? DUPLICATE : decide(command, state),
      { ...options, creates },
    );
  }
}
