import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule, type AppRuntime } from './app.module.js';
import { setupDocs } from './docs/openapi.js';

/** Builds the HTTP app (used by main and by the e2e tests, which boot the real thing). */
export async function createApp(runtime: AppRuntime): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(runtime), {
    bufferLogs: true,
    bodyParser: false,
    // `app.close()` destroys the sockets still open (keep-alive, a stream a client holds) after the
    // shutdown hooks ran (LiveHub ends the live streams first), so shutdown never waits on a client.
    forceCloseConnections: true,
  });
  app.useLogger(app.get(Logger));
  app.useBodyParser('json', { limit: runtime.config.bodyLimitBytes, type: ['application/json', 'application/*+json'] });
  app.set('trust proxy', true);
  app.disable('x-powered-by');
  app.enableShutdownHooks();
  setupDocs(app);
  return app;
}
