import { Inject, Injectable } from '@nestjs/common';
import pg from 'pg';
import { PlainContent, type SessionKeyring } from '#event-store';
import { erasureNotice, NOTIFY_CHANNEL, SnapshotStore } from '#read-models';
import { type EraseResult, eraseSession, type EraseSessionRequest, SessionWriter } from '#session-commands';
import { KEYRING, PG_POOL } from '../database/database.module.js';

/** `eraseSession` with the service's parts: the one place the erasure route, retention and the reconciler erase through. */
@Injectable()
export class SessionEraser {
  private readonly plainContent: PlainContent;

  constructor(
    private readonly writer: SessionWriter,
    private readonly snapshots: SnapshotStore,
    @Inject(KEYRING) readonly keyring: SessionKeyring | null,
    @Inject(PG_POOL) private readonly pool: pg.Pool,
  ) {
    this.plainContent = new PlainContent(pool);
  }

  erase(request: EraseSessionRequest): Promise<EraseResult> {
    return eraseSession(
      {
        writer: this.writer,
        keyring: this.keyring,
        snapshots: this.snapshots,
        plainContent: this.plainContent,
        // On the channel every replica's live hub listens to (on Citus, on every node): sent where this pool is.
        announce: async (streamId, version) => {
          await this.pool.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, erasureNotice(streamId, version)]);
        },
      },
      request,
    );
  }
}
