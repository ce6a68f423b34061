import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { recordJournalParts, SessionWriter, type WriteResult } from '#session-commands';
import { RecordJournalParts } from './record-journal-parts.command.js';

@CommandHandler(RecordJournalParts)
export class RecordJournalPartsHandler implements ICommandHandler<RecordJournalParts> {
  constructor(private readonly writer: SessionWriter) {}

  execute({ sessionId, runId, parts, options }: RecordJournalParts): Promise<WriteResult[]> {
    return recordJournalParts(this.writer, sessionId, runId, parts, options);
  }
}
