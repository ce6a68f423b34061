import { Inject, Injectable } from '@nestjs/common';
import { evolve, type SessionEvent, type SessionState, toSessionStreamId } from '#domain';
import { ConcurrencyError, type EventStore, IdempotencyKeyTaken } from '#event-store';

import { SessionViews, summaryRowOf, type LoadedState } from '#read-models';
import { EVENT_STORE } from '../database/database.module.js';
import { LiveHub, NOTIFY_CHANNEL } from '../live/live-hub.js';
import type { WriteResult } from './write-result.js';
import { sessionNotFound } from './session-not-found.js';


const MAX_ATTEMPTS = 20;

export interface Decision {
  readonly events: readonly SessionEvent[];
  /** The command was already applied (natural key seen): nothing to append. */
  readonly duplicate?: boolean;
}

export interface WriteOptions {
  /** Client's precondition (body `expectedVersion` or `If-Match`): a moved stream is a 409/412, never a retry. */
  readonly expectedVersion?: number;
  /** `Idempotency-Key` header (routes without a natural key). */
  readonly idempotencyKey?: string;
  /** Start of a stream (SessionStarted) rather than a write to an existing session. */
  readonly creates?: boolean;
  readonly requestId?: string;
}

/**
 * The write path of every ingestion route: fold the current state (cached), decide with the pure
 * decider, append at the version decided on. Without a client precondition a lost race re-decides on
 * the new state, so concurrent writers to one session are serialised and never lost.
 */
@Injectable()
export class SessionWriter {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly views: SessionViews,
    private readonly hub: LiveHub,
  ) {}

  async write(sessionId: string, decide: (loaded: LoadedState) => Decision, options: WriteOptions = {}): Promise<WriteResult> {
    const streamId = toSessionStreamId(sessionId);
    const keys = options.idempotencyKey ? [`key:${options.idempotencyKey}`] : [];
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.views.load(sessionId);
      if (!loaded.exists && !options.creates) {
        throw sessionNotFound(sessionId);
      }
      if (options.expectedVersion !== undefined && options.expectedVersion !== loaded.version) {
        throw new ConcurrencyError(streamId, options.expectedVersion, loaded.version);
      }
      if (keys.length > 0 && (await this.store.findIdempotencyKey(streamId, keys[0])) !== null) {
        return { sessionId, version: loaded.version, appended: 0, duplicate: true };
      }
      const decision = decide(loaded);
      if (decision.duplicate || decision.events.length === 0) {
        return { sessionId, version: loaded.version, appended: 0, duplicate: Boolean(decision.duplicate) };
      }
      let state: SessionState = loaded.state;
      for (const event of decision.events) state = evolve(state, event);
      try {
        const result = await this.store.append(
          streamId,
          decision.events.map((event) => ({
            type: event.type,
            data: event.data,
            metadata: options.requestId ? { requestId: options.requestId } : {},
          })),
          {
            expectedVersion: loaded.version,
            idempotencyKeys: keys,
            notify: NOTIFY_CHANNEL,
            // The small summary row (fields the fold state holds directly: the same cost on any session length).
            summary: summaryRowOf(state, loaded.version + decision.events.length),
          },
        );
        this.views.remember(sessionId, result.version, state);
        this.hub.changed(sessionId, result.version);
        return { sessionId, version: result.version, appended: decision.events.length, duplicate: false };
      } catch (error) {
        if (error instanceof IdempotencyKeyTaken) continue;
        const retry = error instanceof ConcurrencyError && options.expectedVersion === undefined && attempt < MAX_ATTEMPTS;
        if (!retry) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(50, attempt * 2)));
      }
    }
  }
}
