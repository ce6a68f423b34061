import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module.js';
import { ImportHermesHandler } from './import-hermes.handler.js';
import { ImportController } from './import.controller.js';

/** `POST /v1/import/hermes`: hermes-webui data uploaded, imported through libs/hermes-import. */
@Module({
  imports: [SessionsModule],
  controllers: [ImportController],
  providers: [ImportHermesHandler],
})
export class ImportModule {}
