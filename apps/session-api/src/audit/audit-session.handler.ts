import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import pg from 'pg';
import type { EventStore, SessionKeyring } from '#event-store';
import { auditSession, type SessionAudit, SessionViews } from '#read-models';
import { EVENT_STORE, KEYRING, PG_POOL } from '../database/database.module.js';
import { AuditSession } from './audit-session.query.js';

@QueryHandler(AuditSession)
export class AuditSessionHandler implements IQueryHandler<AuditSession> {
  constructor(
    @Inject(PG_POOL) private readonly pool: pg.Pool,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly views: SessionViews,
    @Inject(KEYRING) private readonly keyring: SessionKeyring | null,
  ) {}

  execute({ sessionId }: AuditSession): Promise<SessionAudit> {
    return auditSession({ pool: this.pool, store: this.store, views: this.views, keyring: this.keyring }, sessionId);
  }
}
