import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { HermesImportReport } from '#hermes-import';
import { RequireScope, ZodValidationPipe } from '#platform';
import { ImportHermesCommand } from './import-hermes.command.js';
import { type ImportHermesBody, importHermesBody } from './import-hermes.schemas.js';

/** `POST /v1/import/hermes` (scope `admin`): answers the report `chronicle import-hermes --json` prints. */
@ApiTags('import')
@ApiBearerAuth()
@Controller('v1/import')
@RequireScope('admin')
export class ImportController {
  constructor(private readonly commands: CommandBus) {}

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
