import type { IncomingMessage } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  authorizeRequest,
  createLogger,
  escapeMalformedSegments,
  Metrics,
  PinoNestLogger,
  registerCors,
  registerJsonBodyParser,
  RateLimiter,
  registerAuthentication,
  registerPathEncodingCheck,
  registerRequestLog,
  type RouteAccessLookup,
  registerRequestMetrics,
  requestIdFor,
  RouteTable,
  WritesInFlight,
} from '#platform';
import { registerAdminDashboard } from './admin/admin-dashboard.js';
import { AppModule, type AppRuntime } from './app.module.js';
import { setupDocs } from './docs/openapi.js';
import { routeAccessLookup } from './route-access.js';
import { ENVELOPE_BYTES, IngestSocketAdapter } from './ingest/ingest-socket.adapter.js';

/**
 * Route parameters longer than Fastify's default of 100 characters would be refused by the router (414)
 * before the id check could name them; ids are up to 128 characters.
 */
const MAX_PARAM_LENGTH = 1024;
/** Node's own default, which Express kept and Fastify turns off (0): a client slower than this to send its request is cut off. */
const REQUEST_TIMEOUT_MS = 300_000;

/**
 * Builds the HTTP app on Fastify, initialised and ready to serve (used by main and by the e2e tests,
 * which boot the real thing and drive `getHttpServer()` with supertest).
 */
export async function createApp(runtime: AppRuntime): Promise<NestFastifyApplication> {
  const log = runtime.log ?? createLogger(runtime.config.logLevel);
  const adapter = new FastifyAdapter({
    bodyLimit: runtime.config.bodyLimitBytes,
    trustProxy: true,
    requestTimeout: REQUEST_TIMEOUT_MS,
    genReqId: requestIdFor,
    // A path segment that is not valid percent-encoding reaches its route, to be refused as a problem there.
    rewriteUrl: (request: IncomingMessage) => escapeMalformedSegments(request.url ?? '/'),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true },
  });
  const fastify = adapter.getInstance();
  // Before any route: the table sees every one (the inventory test, and 405 with Allow).
  const routes = new RouteTable();
  routes.register(fastify);
  registerCors(fastify, runtime.config.corsOrigins);
  registerJsonBodyParser(fastify, runtime.config.bodyLimitBytes);
  registerRequestLog(fastify, log);
  // Counted from the first hook, so shutdown answers every write it has begun before it closes the sockets.
  const writes = new WritesInFlight();
  writes.register(fastify);
  // Authentication runs before the body is read; the routes' needs are known once Nest has mapped them.
  const access: { lookup?: RouteAccessLookup } = {};
  const limiter = new RateLimiter(runtime.config.rateLimitPerMinute);
  registerAuthentication(fastify, { keys: runtime.keys, limiter, lookup: () => access.lookup });
  registerPathEncodingCheck(fastify);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot({ ...runtime, routes, limiter, writes }), adapter, {
    logger: new PinoNestLogger(log),
    bodyParser: false,
    // A provider that fails to start (a bad key file, an unreachable key store) throws to the caller, whose
    // handler prints one line and exits 2 for a configuration error, instead of Nest exiting 1 on its own.
    abortOnError: false,
    // `app.close()` destroys the sockets still open (keep-alive, a stream a client holds) after the
    // shutdown hooks ran (LiveHub ends the live streams first, WriteDrain waits for the writes under way,
    // at most 5 s), so shutdown never waits on a client for long and never cuts a write it began.
    forceCloseConnections: true,
  });
  // No `enableShutdownHooks()`: main.ts owns the signals and closes the app itself, then the database; Nest's
  // own listener raced it and, after closing, sent the signal again to a process with no listener left.
  // `/v1/ingest`: the key is checked on the upgrade, as the HTTP routes check it in `onRequest`.
  app.useWebSocketAdapter(
    new IngestSocketAdapter(
      app,
      (request) => authorizeRequest(request.headers.authorization, 'ingest', runtime.keys, limiter),
      runtime.config.bodyLimitBytes + ENVELOPE_BYTES,
    ),
  );
  registerRequestMetrics(fastify, app.get(Metrics));
  // Routes (the docs included) must all be registered before Fastify is ready; after it, none can be.
  setupDocs(app);
  registerAdminDashboard(fastify);
  await app.init();
  access.lookup = routeAccessLookup(app);
  await fastify.ready();
  return app;
}
