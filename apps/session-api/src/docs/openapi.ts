import { startAuditBody } from '../audit/audit-jobs.schemas.js';
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { z } from 'zod';
import { journalEventSchema, messageRowSchema, sessionEventSchemas, stateRowSchema, toolCardSchema } from '#domain';
import {
  compressBody,
  journalBody,
  messagesBody,
  settleBody,
  stateRowsBody,
  submissionBody,
  truncateBody,
} from '../sessions/ingestion.schemas.js';
import { importHermesBody } from '../import/import-hermes.schemas.js';
import { hostStartedBody, leaseBody, streamBody, sweepBody } from '../recovery/recovery.schemas.js';
import { sessionListQuery } from '../sessions/session-list.js';
import { eventsQuery, startSessionBody } from '../sessions/sessions.controller.js';
import { liveQuery } from '../live/live.controller.js';
import { transcriptQuery } from '../sessions/session-queries.controller.js';

type Json = Record<string, unknown>;
const schema = (s: z.ZodType, io: 'input' | 'output' = 'input'): Json =>
  z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'openapi-3.0' }) as Json;

const writeResult = {
  type: 'object',
  required: ['sessionId', 'version', 'appended', 'duplicate'],
  properties: {
    sessionId: { type: 'string' },
    version: { type: 'integer' },
    appended: { type: 'integer' },
    duplicate: { type: 'boolean' },
  },
};
const importReport = {
  type: 'object',
  required: ['dryRun', 'sessions', 'events', 'skipped'],
  properties: {
    dryRun: { type: 'boolean' },
    sessions: { type: 'object', properties: { read: { type: 'integer' }, imported: { type: 'integer' }, unchanged: { type: 'integer' }, refused: { type: 'integer' } } },
    events: { type: 'object', properties: { total: { type: 'integer' }, byType: { type: 'object', additionalProperties: { type: 'integer' } } } },
    skipped: { type: 'array', items: { type: 'object', properties: { item: { type: 'string' }, reason: { type: 'string' } } } },
  },
};
const problem = { $ref: '#/components/schemas/Problem' };
const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((code) => [String(code), { description: 'problem details', content: { 'application/problem+json': { schema: problem } } }]));

function queryParameters(s: z.ZodObject): Json[] {
  const json = schema(s) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

interface Route {
  readonly summary: string;
  readonly scope: 'ingest' | 'read' | 'admin';
  readonly body?: z.ZodType;
  readonly query?: z.ZodObject;
  readonly ok?: Json;
  readonly status?: number;
}

const ROUTES: Record<string, Record<string, Route>> = {
  '/v1/sessions': {
    post: { summary: 'Start a session (SessionStarted); 200 + duplicate when it exists', scope: 'ingest', body: startSessionBody, ok: writeResult, status: 201 },
    get: { summary: 'List sessions from the async index (status, q, cursor pagination)', scope: 'read', query: sessionListQuery },
  },
  '/v1/key': { get: { summary: 'The scopes of the key this request carries (the dashboard checks a key at sign-in)', scope: 'read' } },
  '/v1/sessions/{id}': { get: { summary: 'Session summary folded at the current version', scope: 'read' } },
  '/v1/sessions/{id}/messages': { post: { summary: 'MessagesRecorded: UI-owned committed rows', scope: 'ingest', body: messagesBody, ok: writeResult } },
  '/v1/sessions/{id}/submissions': { post: { summary: 'UserMessageSubmitted: a user turn starts', scope: 'ingest', body: submissionBody, ok: writeResult } },
  '/v1/sessions/{id}/runs/{runId}/settle': { post: { summary: 'TurnSettled: the worker finished the turn', scope: 'ingest', body: settleBody, ok: writeResult } },
  '/v1/sessions/{id}/runs/{runId}/journal': {
    post: { summary: 'JournalEventRecorded per new (runId, seq)', scope: 'ingest', body: journalBody, ok: writeResult },
    get: { summary: 'The run journal read model: events, lastSeq, gaps, terminal state', scope: 'read' },
  },
  '/v1/sessions/{id}/state-rows': { post: { summary: 'StateRowsObserved: rows read from the agent store', scope: 'ingest', body: stateRowsBody, ok: writeResult } },
  '/v1/sessions/{id}/truncate': { post: { summary: 'TranscriptTruncated (sets the watermark)', scope: 'ingest', body: truncateBody, ok: writeResult } },
  '/v1/sessions/{id}/compress': { post: { summary: 'SessionCompressed on the parent + SessionStarted on the child', scope: 'ingest', body: compressBody, ok: writeResult } },
  '/v1/sessions/{id}/transcript': {
    get: {
      summary:
        'Display or context transcript, optionally as of a version (time travel); with since, the delta from a version the client holds (keep the first `from` rows, append `messages`); with streaming=1, the pending turn\'s output so far. Strong ETag, If-None-Match → 304',
      scope: 'read',
      query: transcriptQuery,
    },
  },
  '/v1/sessions/{id}/markers': { get: { summary: '"Response interrupted" markers derived from recovery decisions', scope: 'read' } },
  '/v1/sessions/{id}/events': { get: { summary: 'The session stream, page by page', scope: 'read', query: eventsQuery } },
  '/v1/sessions/{id}/live': {
    get: {
      summary:
        'Server-Sent Events: transcript {version, hash} per change; with patches=1, patch {version, hash, since, from, messages, toolCards, markers, streaming} per change instead; Last-Event-ID resumes',
      scope: 'read',
      query: liveQuery,
    },
  },
  '/v1/sessions/{id}/audit': { post: { summary: 'Verify the hash chain, rebuild every read model from the events and compare', scope: 'admin' } },
  '/v1/hosts/{hostId}/started': { post: { summary: 'An agent host booted; runs it held before are gone', scope: 'ingest', body: hostStartedBody } },
  '/v1/runs/{runId}/lease': {
    put: { summary: 'The worker registry lists the run until the lease expires', scope: 'ingest', body: leaseBody },
    delete: { summary: 'The worker unregistered the run', scope: 'ingest' },
  },
  '/v1/runs/{runId}/stream': {
    put: { summary: 'The live response stream to the client opened', scope: 'ingest', body: streamBody },
    delete: { summary: 'The live response stream closed', scope: 'ingest' },
  },
  '/v1/recovery/sweep': { post: { summary: 'Run the recovery supervisor once; optional now (later than the clock)', scope: 'admin', body: sweepBody.unwrap() } },
  '/v1/audit': {
    post: {
      summary: 'Start the whole-store audit job (optional since): 202 with the job, or the running one (alreadyRunning: true)',
      scope: 'admin',
      body: startAuditBody.unwrap(),
    },
  },
  '/v1/audit/{jobId}': {
    get: { summary: 'An audit job: progress (sessions, events, rate, ETA); at the end result { sessions, mismatches, eventsReplayed, seconds }', scope: 'admin' },
  },
  '/v1/audit/{jobId}/live': { get: { summary: 'Server-Sent Events: progress events, then one done event with the job', scope: 'admin' } },
  '/v1/import/hermes': {
    post: {
      summary: 'Import uploaded hermes-webui files (sidecars, state.db in base64, run journals): the report of chronicle import-hermes --json',
      scope: 'admin',
      body: importHermesBody,
      ok: importReport,
    },
  },
  '/v1/projections/{name}/rebuild': { post: { summary: 'Blue/green rebuild of a read model (session_index, session_snapshots) from the log', scope: 'admin' } },
};

/** The OpenAPI document, generated from the same zod schemas that validate the requests. */
export function buildOpenApiDocument(app: INestApplication) {
  const config = new DocumentBuilder()
    .setTitle('Chronicle')
    .setDescription('Event-sourced session service for AI-agent chat products. Every /v1 route needs Authorization: Bearer <key>.')
    .setVersion('0.1.0')
    .addBearerAuth()
    .build();
  const document = SwaggerModule.createDocument(app, config);
  const paths: Record<string, Record<string, Json>> = { ...(document.paths as Record<string, Record<string, Json>>) };
  for (const [path, methods] of Object.entries(ROUTES)) {
    paths[path] = { ...(paths[path] ?? {}) };
    for (const [method, route] of Object.entries(methods)) {
      const pathParameters = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,128}$' } }));
      paths[path][method] = {
        ...(paths[path][method] ?? {}),
        summary: route.summary,
        description: `Scope: ${route.scope}`,
        security: [{ bearer: [] }],
        parameters: [...pathParameters, ...(route.query ? queryParameters(route.query) : [])],
        ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: schema(route.body) } } } } : {}),
        responses: {
          [String(route.status ?? 200)]: { description: 'OK', content: { 'application/json': { schema: route.ok ?? { type: 'object' } } } },
          ...errors(400, 401, 403, 404, ...(route.body ? [409, 412, 413, 422] : []), 429),
        },
      };
    }
  }
  const components = {
    ...(document.components ?? {}),
    schemas: {
      ...(document.components?.schemas ?? {}),
      Problem: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail', 'code'],
        properties: {
          type: { type: 'string' },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          code: { type: 'string' },
          errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
        },
      },
      MessageRow: schema(messageRowSchema),
      StateRow: schema(stateRowSchema),
      JournalEvent: schema(journalEventSchema),
      ToolCard: schema(toolCardSchema, 'output'),
      ...Object.fromEntries(Object.entries(sessionEventSchemas).map(([type, s]) => [`${type}Data`, schema(s, 'output')])),
    },
  };
  return { ...document, paths, components } as typeof document;
}

export function setupDocs(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json' });
}
