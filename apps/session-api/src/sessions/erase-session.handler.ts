import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { SessionKeyring } from '#event-store';
import { SnapshotStore } from '#read-models';
import { type EraseResult, eraseSession, SessionWriter } from '#session-commands';
import { KEYRING } from '../database/database.module.js';
import { EraseSession } from './erase-session.command.js';

@CommandHandler(EraseSession)
export class EraseSessionHandler implements ICommandHandler<EraseSession> {
  constructor(
    private readonly writer: SessionWriter,
    private readonly snapshots: SnapshotStore,
    @Inject(KEYRING) private readonly keyring: SessionKeyring | null,
  ) {}

  execute({ sessionId, reason, requestedBy }: EraseSession): Promise<EraseResult> {
    return eraseSession(
      { writer: this.writer, keyring: this.keyring, snapshots: this.snapshots },
      { sessionId, reason, requestedBy, at: Date.now() / 1000 },
    );
  }
}
