import { Command } from '@nestjs/cqrs';
import type { JournalEvent } from '#domain';
import type { WriteOptions, WriteResult } from '#session-commands';

/** Journal messages of one run read together from one `/v1/ingest` connection: one write, an answer per message. */
export class RecordJournalParts extends Command<WriteResult[]> {
  constructor(
    readonly sessionId: string,
    readonly runId: string,
    readonly parts: readonly (readonly JournalEvent[])[],
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
