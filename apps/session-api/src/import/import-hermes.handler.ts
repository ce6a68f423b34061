import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '#event-store';
import { type HermesImportReport, importHermes, uploadSource } from '#hermes-import';
import { SessionIndexProjector, SessionViews } from '#read-models';
import { SessionWriter } from '#session-commands';
import { EVENT_STORE } from '../database/database.module.js';
import { ImportHermesCommand } from './import-hermes.command.js';

/** The same capability as the CLI (libs/hermes-import), on the service's store, views and write path. */
@CommandHandler(ImportHermesCommand)
export class ImportHermesHandler implements ICommandHandler<ImportHermesCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly views: SessionViews,
    private readonly writer: SessionWriter,
    private readonly projector: SessionIndexProjector,
  ) {}

  async execute({ upload, dryRun }: ImportHermesCommand): Promise<HermesImportReport> {
    const report = await importHermes({ store: this.store, views: this.views, writer: this.writer }, uploadSource(upload), { dryRun });
    if (report.events.total > 0 && !dryRun) this.projector.poke();
    return report;
  }
}
