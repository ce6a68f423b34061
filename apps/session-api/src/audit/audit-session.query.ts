import { Query } from '@nestjs/cqrs';
import type { SessionAudit } from '#read-models';

/** `POST /v1/sessions/{id}/audit`: the stream's hash chain, and every stored view against a replay of its events. */
export class AuditSession extends Query<SessionAudit> {
  constructor(readonly sessionId: string) {
    super();
  }
}
