import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Reflector } from '@nestjs/core';
import request from 'supertest';
import { z } from 'zod';
import { accessOf, problemSchema, RouteTable } from '#platform';
import { type Answer, isEventStream, isJsonAnswer } from '../../apps/session-api/src/docs/api-route.decorator.js';
import { apiRouteSpecOf, successAnswersOf } from '../../apps/session-api/src/docs/openapi.js';
import { SchemaComponents } from '../../apps/session-api/src/docs/schema-components.js';
import { type NestRoute, nestRoutes, normaliseRoutePath, openApiPath } from '../../apps/session-api/src/http/nest-routes.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { extraFields, type Observed, ScenarioRecorder } from '../support/api-scenario.js';

type Json = Record<string, unknown>;
type Operation = { responses: Record<string, Json>; security?: unknown[]; parameters?: Json[]; 'x-required-scope'?: string };
type Document = { info: { description: string }; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> } };

/** Routes Fastify holds that no controller declares and the API document leaves out: Swagger's UI and its files, the dashboard's. */
const OUTSIDE_THE_API = /^\/(docs(-yaml)?|admin)(\/|$)/;

let t: TestApp;
let doc: Document;
let observed: readonly Observed[];
/** `METHOD /openapi/{path}` → the controller method behind it. */
let routes: Map<string, NestRoute>;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen(0, '127.0.0.1');
  doc = (await request(t.server).get('/docs/openapi.json')).body;
  routes = new Map(nestRoutes(t.app).map((route) => [`${route.method} ${openApiPath(route.path)}`, route]));
  const recorder = new ScenarioRecorder(t.server, (t.app.getHttpServer().address() as AddressInfo).port);
  await recorder.run();
  observed = recorder.observed;
});
afterAll(async () => {
  await t.close();
});

const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })));

function resolve(schema: Json | undefined): Json | undefined {
  const ref = schema?.$ref;
  return typeof ref === 'string' ? resolve(doc.components.schemas[ref.split('/').at(-1)!]) : schema;
}

/** `{}` or `{ type: 'object' }` and nothing more: says nothing a client could generate a type from. */
function isUntyped(schema: Json | undefined): boolean {
  const resolved = resolve(schema);
  if (!resolved) return true;
  const { type, description: _description, ...rest } = resolved;
  return (type === undefined || type === 'object') && Object.keys(rest).length === 0;
}

/** Every `description` in the document, where Markdown would take `<key>` for an HTML tag. */
function descriptions(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => descriptions(item, found));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'description' && typeof inner === 'string') found.push(inner);
      else descriptions(inner, found);
    }
  }
  return found;
}

/** What `value` breaks of `schema`, an undocumented field included (the parse strips it, so it shows as missing). */
function conformance(label: string, schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  if (!parsed.success) return parsed.error.issues.map((issue) => `${label}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  return extraFields(value, parsed.data).map((path) => `${label}: ${path} is not documented`);
}

function answerMismatches(seen: Observed, answer: z.ZodType | Answer, documented: Json): string[] {
  const label = `${seen.route} ${seen.status}`;
  const content = (documented.content ?? {}) as Record<string, Json>;
  const components = new SchemaComponents();
  if (answer instanceof z.ZodType || isJsonAnswer(answer)) {
    const schema = answer instanceof z.ZodType ? answer : answer.schema;
    const shown = content['application/json']?.schema;
    if (JSON.stringify(shown) !== JSON.stringify(components.of(schema))) return [`${label}: the document does not show the route's schema`];
    if (!seen.contentType.startsWith('application/json')) return [`${label}: answered ${seen.contentType}`];
    return conformance(label, schema, seen.body);
  }
  if (isEventStream(answer)) {
    if (!seen.contentType.startsWith('text/event-stream') || !seen.events?.length) return [`${label}: no event stream`];
    const shown = content['text/event-stream']?.['x-events'] as Record<string, { schema: Json }> | undefined;
    return seen.events.flatMap((event) => {
      const documentedEvent = answer.events[event.event];
      if (!documentedEvent || JSON.stringify(shown?.[event.event]?.schema) !== JSON.stringify(components.of(documentedEvent.schema))) {
        return [`${label}: event ${event.event} is not documented`];
      }
      const data = JSON.parse(event.data) as Json;
      const id = answer.idField && event.id !== String(data[answer.idField]) ? [`${label}: event id ${event.id} is not its ${answer.idField}`] : [];
      return [...id, ...conformance(`${label} event ${event.event}`, documentedEvent.schema, data)];
    });
  }
  if (answer.mediaType) return seen.contentType.startsWith(answer.mediaType) && seen.text.length > 0 ? [] : [`${label}: answered ${seen.contentType}`];
  return seen.text === '' ? [] : [`${label}: a body where none is documented`];
}

/** What one observed answer breaks of its operation's documentation. */
function mismatches(seen: Observed): string[] {
  const [method, path] = seen.route.split(' ');
  const documented = doc.paths[path]?.[method.toLowerCase()]?.responses[String(seen.status)];
  if (!documented) return [`${seen.route} answered ${seen.status}, which its operation does not document`];
  if (seen.status >= 400) {
    if (!seen.contentType.startsWith('application/problem+json')) return [`${seen.route} ${seen.status}: answered ${seen.contentType}`];
    return conformance(`${seen.route} ${seen.status}`, problemSchema, seen.body);
  }
  const route = routes.get(seen.route)!;
  const answer = successAnswersOf(route, apiRouteSpecOf(route)!).get(seen.status);
  return answer ? answerMismatches(seen, answer, documented) : [`${seen.route} ${seen.status}: no @ApiRoute answer`];
}

describe('GET /docs', () => {
  it('serves the OpenAPI UI and its document', async () => {
    const ui = await request(t.server).get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.headers['content-type']).toContain('text/html');
    // The UI's assets come from @fastify/static on Fastify: without it the page would load and stay blank.
    const bundle = await request(t.server).get('/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toContain('javascript');
    const submit = doc.paths['/v1/sessions/{id}/submissions'].post as Operation & { requestBody: { content: Record<string, { schema: Json }> } };
    const body = submit.requestBody.content['application/json'].schema as { required: string[]; properties: Record<string, Json> };
    expect(body.required).toEqual(expect.arrayContaining(['runId', 'text', 'submittedAt']));
    expect(body.properties.runId.pattern).toBe('^[A-Za-z0-9_.:-]{1,128}$');
    expect(Object.keys(submit.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '409', '412', '413', '429']));
    expect(doc.components.schemas.TurnInterruptedData).toMatchObject({ properties: { cause: { enum: expect.arrayContaining(['process_restart']) } } });
  });
});

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.0 document', async () => {
    const result = await new Validator().validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every route of the router, and nothing else', () => {
    const router = t.app
      .get(RouteTable)
      .routes.filter(({ method, url }) => method !== 'HEAD' && !OUTSIDE_THE_API.test(normaliseRoutePath(url)))
      .map(({ method, url }) => `${method} ${openApiPath(normaliseRoutePath(url))}`);
    expect(router.length).toBeGreaterThan(25);
    expect(operationsOf(doc).map(({ key }) => key).sort()).toEqual([...new Set(router)].sort());
  });

  it('gives every operation a typed success answer, never a bare object', () => {
    const untyped: string[] = [];
    for (const { key, operation } of operationsOf(doc)) {
      const successes = Object.entries(operation.responses).filter(([status]) => /^2/.test(status));
      if (successes.length === 0) untyped.push(`${key}: no 2xx answer`);
      for (const [status, response] of successes) {
        const content = response.content as Record<string, Json> | undefined;
        if (!content) untyped.push(`${key} ${status}: no content`);
        for (const [media, { schema, 'x-events': events }] of Object.entries(content ?? {})) {
          if (media === 'application/json' && isUntyped(schema as Json)) untyped.push(`${key} ${status}: untyped JSON`);
          if (media === 'text/event-stream') {
            const typed = Object.values((events ?? {}) as Record<string, { schema: Json }>).filter((event) => !isUntyped(event.schema));
            if (typed.length === 0) untyped.push(`${key} ${status}: untyped events`);
          }
        }
      }
    }
    expect(untyped).toEqual([]);
  });

  it('keeps markup such as <key> inside code spans, so Swagger UI renders it', () => {
    expect(doc.info.description).toContain('`Authorization: Bearer <key>`');
    expect(descriptions(doc).filter((text) => /[<>]/.test(text.replace(/`[^`]*`/g, '')))).toEqual([]);
  });

  it('declares opaque bearer keys, and each route with the access its own decorators give it', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: expect.not.stringMatching(/jwt/i) });
    const reflector = t.app.get(Reflector);
    const declared = [...routes].map(([key, route]) => {
      const access = accessOf(reflector, route.handler, route.controller);
      const { security, 'x-required-scope': scope } = doc.paths[openApiPath(route.path)][route.method.toLowerCase()];
      return [key, access.public ? 'public' : (access.scope ?? 'admin'), security?.length ? scope : 'public'];
    });
    expect(declared.filter(([, access, documented]) => access !== documented)).toEqual([]);
    expect(Object.fromEntries(declared.map(([key, access]) => [key, access]))).toMatchObject({
      'POST /v1/sessions': 'ingest',
      'GET /v1/key': 'read',
      'GET /v1/sessions/{id}/live': 'read',
      'POST /v1/audit': 'admin',
      'GET /metrics': 'public',
    });
  });

  it('documents the request headers of the routes that read them, the duplicate start, and the event streams', () => {
    const headers = (key: string) => {
      const [method, path] = key.split(' ');
      return (doc.paths[path][method.toLowerCase()].parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    };
    expect(headers('POST /v1/sessions/{id}/messages')).toEqual(['If-Match', 'Idempotency-Key']);
    expect(headers('POST /v1/sessions/{id}/truncate')).toEqual(['If-Match', 'Idempotency-Key']);
    expect(headers('POST /v1/sessions/{id}/runs/{runId}/settle')).toEqual(['If-Match']);
    expect(headers('GET /v1/sessions/{id}/transcript')).toEqual(['If-None-Match']);
    expect(headers('GET /v1/sessions/{id}/live')).toEqual(['Last-Event-ID']);
    const start = doc.paths['/v1/sessions'].post.responses;
    expect([start['201'], start['200']].map((r) => (r.content as Record<string, Json>)['application/json'].schema)).toEqual([
      { $ref: '#/components/schemas/WriteResult' },
      { $ref: '#/components/schemas/WriteResult' },
    ]);
    for (const [path, events] of [['/v1/sessions/{id}/live', ['transcript', 'patch', 'erased']], ['/v1/audit/{jobId}/live', ['progress', 'done']]] as const) {
      const stream = (doc.paths[path].get.responses['200'].content as Record<string, Json>)['text/event-stream'];
      expect(Object.keys(stream['x-events'] as Json)).toEqual(events);
      expect(stream.example).toEqual(expect.stringContaining(`event: ${events[0]}\ndata: {`));
    }
  });

  it('holds examples that its own schemas accept', () => {
    const examples = [...routes.values()].flatMap((route) =>
      [...successAnswersOf(route, apiRouteSpecOf(route)!).values()].flatMap((answer) =>
        answer instanceof z.ZodType ? [answer] : isJsonAnswer(answer) ? [answer.schema] : isEventStream(answer) ? Object.values(answer.events).map((e) => e.schema) : [],
      ),
    );
    const checked = [...new Set([...examples, problemSchema])].flatMap((schema) => {
      const example = z.globalRegistry.get(schema)?.example;
      return example === undefined ? [] : [conformance(`example of ${String(z.globalRegistry.get(schema)?.id)}`, schema, example)];
    });
    expect(checked.length).toBeGreaterThan(15);
    expect(checked.flat()).toEqual([]);
  });
});

describe('every route answers as its operation documents', () => {
  it('exercises every documented route and success status against the real service', () => {
    const exercised = new Set(observed.map(({ route, status }) => `${route} ${status}`));
    const documented = operationsOf(doc).flatMap(({ key, operation }) => Object.keys(operation.responses).filter((status) => /^[23]/.test(status)).map((status) => `${key} ${status}`));
    expect(documented.filter((answer) => !exercised.has(answer))).toEqual([]);
  });

  it('answers each of them with what the schema of that status says, every field documented', () => {
    expect(observed.flatMap(mismatches)).toEqual([]);
  });

  it('checks problem answers too', () => {
    expect(observed.filter(({ status }) => status >= 400).map(({ status }) => status).sort()).toEqual([400, 401, 404, 412]);
  });
});
