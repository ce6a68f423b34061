import { Command } from '@nestjs/cqrs';
import type { CompressResult, CompressSessionData, WriteOptions } from '#session-commands';

/** `POST /v1/sessions/{id}/compress`: the parent archived, the child started (two streams, see `compressSession`). */
export class CompressSession extends Command<CompressResult> {
  constructor(
    readonly sessionId: string,
    readonly data: CompressSessionData,
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
