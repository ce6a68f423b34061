import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EraseResult } from '#session-commands';
import { EraseSession } from './erase-session.command.js';
import { SessionEraser } from './session-eraser.js';

@CommandHandler(EraseSession)
export class EraseSessionHandler implements ICommandHandler<EraseSession> {
  constructor(private readonly eraser: SessionEraser) {}

  execute({ sessionId, reason, requestedBy }: EraseSession): Promise<EraseResult> {
    return this.eraser.erase({ sessionId, reason, requestedBy, at: Date.now() / 1000 });
  }
}
