import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import pg from 'pg';
import type { EventStore, SessionKeyring } from '#event-store';
import { rebuildProjection, type RebuildResult } from '#read-models';
import { EVENT_STORE, KEYRING, PG_POOL } from '../database/database.module.js';
import { RebuildProjection } from './rebuild-projection.command.js';

@CommandHandler(RebuildProjection)
export class RebuildProjectionHandler implements ICommandHandler<RebuildProjection> {
  constructor(
    @Inject(PG_POOL) private readonly pool: pg.Pool,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(KEYRING) private readonly keyring: SessionKeyring | null,
  ) {}

  execute({ name }: RebuildProjection): Promise<RebuildResult> {
    return rebuildProjection({ pool: this.pool, store: this.store, keys: this.keyring }, name);
  }
}
