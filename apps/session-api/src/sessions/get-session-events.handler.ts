import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { toSessionStreamId } from '#domain';
import type { EventStore } from '#event-store';

import { EVENT_STORE } from '../database/database.module.js';
import { GetSessionEvents, type SessionEventsPage } from './get-session-events.query.js';
import { SessionViews } from '#read-models';
import { refuseErased, sessionNotFound } from './session-not-found.js';

@QueryHandler(GetSessionEvents)
export class GetSessionEventsHandler implements IQueryHandler<GetSessionEvents> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly views: SessionViews,
  ) {}

  async execute({ sessionId, after, limit }: GetSessionEvents): Promise<SessionEventsPage> {
    const streamId = toSessionStreamId(sessionId);
    // One read of the head: the state at it says whether the session exists and whether it was erased.
    const head = await this.views.load(sessionId);
    if (!head.exists) throw sessionNotFound(sessionId);
    await refuseErased(this.views, sessionId, head.state);
    const events = await this.store.readStream(streamId, { from: after + 1, to: after + limit });
    const last = events.at(-1);
    return {
      // Times are epoch seconds as JSON numbers (contract conventions); positions fit a double.
      items: events.map(({ version, globalPosition, type, data, metadata, recordedAt }) => ({
        version,
        globalPosition: Number(globalPosition),
        type,
        data,
        metadata,
        recordedAt: Date.parse(recordedAt) / 1000,
      })),
      nextAfter: last && last.version < head.version ? last.version : null,
    };
  }
}
