import { Module } from '@nestjs/common';
import { GetSessionEventsHandler } from './get-session-events.handler.js';
import { SessionsController } from './sessions.controller.js';
import { StartSessionHandler } from './start-session.handler.js';

@Module({
  controllers: [SessionsController],
  providers: [StartSessionHandler, GetSessionEventsHandler],
})
export class SessionsModule {}
