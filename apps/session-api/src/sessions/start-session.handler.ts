import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { toSessionStreamId } from '#domain';
import { ConcurrencyError, type EventStore } from '#event-store';
import { EVENT_STORE } from '../database/database.module.js';
import { StartSession } from './start-session.command.js';
import type { WriteResult } from './write-result.js';

@CommandHandler(StartSession)
export class StartSessionHandler implements ICommandHandler<StartSession> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ input, requestId }: StartSession): Promise<WriteResult & { created: boolean }> {
    const streamId = toSessionStreamId(input.sessionId);
    const existing = await this.store.head(streamId);
    if (existing) return { sessionId: input.sessionId, version: existing.version, appended: 0, duplicate: true, created: false };
    try {
      const result = await this.store.append(
        streamId,
        [{ type: 'SessionStarted', data: input, metadata: requestId ? { requestId } : {} }],
        { expectedVersion: 0 },
      );
      return { sessionId: input.sessionId, version: result.version, appended: 1, duplicate: false, created: true };
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      const head = await this.store.head(streamId);
      return { sessionId: input.sessionId, version: head?.version ?? 1, appended: 0, duplicate: true, created: false };
    }
  }
}
