import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { HermesImportReport } from '#hermes-import';
import { RequireScope, ZodValidationPipe } from '#platform';
import { ImportHermesCommand } from './import-hermes.command.js';
import { type ImportHermesBody, importHermesBody, importReportAnswer } from './import-hermes.schemas.js';
import { ApiRoute } from '../docs/api-route.decorator.js';

/** `POST /v1/import/hermes` (scope `admin`): answers the report `chronicle import-hermes --json` prints. */
@ApiTags('import')
@ApiBearerAuth()
@Controller('v1/import')
@RequireScope('admin')
export class ImportController {
  constructor(private readonly commands: CommandBus) {}

  @ApiRoute({
    summary: 'Import uploaded hermes-webui files',
    description: 'Sidecars, the state.db in base64 and run journals, inline. What is inside a file is checked per item and reported; `dryRun` stores nothing.',
    body: importHermesBody,
    ok: importReportAnswer,
  })
  @Post('hermes')
  @HttpCode(200)
  importHermes(@Body(new ZodValidationPipe(importHermesBody)) body: ImportHermesBody): Promise<HermesImportReport> {
    const upload = {
      sessions: body.sessions,
      journals: body.journals ?? [],
      ...(body.stateDb ? { stateDb: Buffer.from(body.stateDb.contentBase64, 'base64') } : {}),
    };
    return this.commands.execute(new ImportHermesCommand(upload, body.dryRun === true));
  }
}
