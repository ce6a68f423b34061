import { Command } from '@nestjs/cqrs';
import type { EraseResult } from '#session-commands';

/** `POST /v1/sessions/{id}/erasure`: the session's content destroyed for good (README "Personal data"). */
export class EraseSession extends Command<EraseResult> {
  constructor(
    readonly sessionId: string,
    readonly reason: string,
    /** Who asked (`SessionErased.requestedBy`): the API key's fingerprint, never the key. */
    readonly requestedBy: string,
  ) {
    super();
  }
}
