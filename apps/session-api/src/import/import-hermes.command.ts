import { Command } from '@nestjs/cqrs';
import type { HermesImportReport, HermesUpload } from '#hermes-import';

/** `POST /v1/import/hermes` on the bus: an upload of hermes-webui files, imported (or only decided: `dryRun`). */
export class ImportHermesCommand extends Command<HermesImportReport> {
  constructor(
    readonly upload: HermesUpload,
    readonly dryRun: boolean,
  ) {
    super();
  }
}
