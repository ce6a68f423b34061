import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionViews } from '#read-models';
import { type CompressResult, compressSession, SessionWriter } from '#session-commands';
import { CompressSession } from './compress-session.command.js';

@CommandHandler(CompressSession)
export class CompressSessionHandler implements ICommandHandler<CompressSession> {
  constructor(
    private readonly writer: SessionWriter,
    private readonly views: SessionViews,
  ) {}

  execute({ sessionId, data, options }: CompressSession): Promise<CompressResult> {
    return compressSession(this.writer, this.views, sessionId, data, options);
  }
}
