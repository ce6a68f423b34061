import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { toSessionStreamId } from '#domain';
import type { EventStore } from '#event-store';
import { ProblemError } from '#platform';
import { EVENT_STORE } from '../database/database.module.js';
import { GetSessionEvents, type SessionEventsPage } from './get-session-events.query.js';

@QueryHandler(GetSessionEvents)
export class GetSessionEventsHandler implements IQueryHandler<GetSessionEvents> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ sessionId, after, limit }: GetSessionEvents): Promise<SessionEventsPage> {
    const streamId = toSessionStreamId(sessionId);
    const head = await this.store.head(streamId);
    if (!head) throw new ProblemError(404, 'SESSION_NOT_FOUND', `Session ${sessionId} was never started.`);
    const events = await this.store.readStream(streamId, { from: after + 1, to: after + limit });
    const last = events.at(-1);
    return {
      items: events.map(({ version, globalPosition, type, data, metadata, recordedAt }) => ({
        version,
        globalPosition,
        type,
        data,
        metadata,
        recordedAt,
      })),
      nextAfter: last && last.version < head.version ? last.version : null,
    };
  }
}
