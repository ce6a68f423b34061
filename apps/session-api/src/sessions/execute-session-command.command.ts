import { Command } from '@nestjs/cqrs';
import type { SessionCommand } from '#domain';
import type { WriteOptions, WriteResult } from '#session-commands';

/** Every ingestion route becomes one of these: a domain command for one session, with its preconditions. */
export class ExecuteSessionCommand extends Command<WriteResult> {
  constructor(
    readonly sessionId: string,
    readonly command: SessionCommand,
    readonly options: WriteOptions = {},
  ) {
    super();
  }
}
