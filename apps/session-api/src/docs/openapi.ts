import type { INestApplication } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { z } from 'zod';
import { idSchema, sessionEventSchemas } from '#domain';
import { type Access, accessOf, scopeText } from '#platform';
import { type NestRoute, nestRoutes, openApiPath } from '../http/nest-routes.js';
import { type Answer, API_ROUTE, type ApiRouteSpec } from './api-route.decorator.js';
import { answerResponse, problemRef, problemResponses } from './api-route.responses.js';
import { INTRO, TAGS } from './openapi.intro.js';
import { type Json, SchemaComponents } from './schema-components.js';

/** The `@ApiRoute` spec of a route, if it has one. */
export const apiRouteSpecOf = (route: NestRoute): ApiRouteSpec | undefined => Reflect.getMetadata(API_ROUTE, route.handler) as ApiRouteSpec | undefined;

/** A route's success answers by status: `ok` at the handler's status (`@HttpCode`, else Nest's default), then `also`. */
export function successAnswersOf(route: NestRoute, spec: ApiRouteSpec): Map<number, z.ZodType | Answer> {
  const status = (Reflect.getMetadata(HTTP_CODE_METADATA, route.handler) as number | undefined) ?? (route.method === 'POST' ? 201 : 200);
  return new Map([[status, spec.ok], ...Object.entries(spec.also ?? {}).map(([other, answer]) => [Number(other), answer] as const)]);
}

/** Problem statuses every route of its kind answers, plus what the route declares. */
function problemStatuses(route: NestRoute, spec: ApiRouteSpec, access: Access): number[] {
  const statuses = new Set<number>(spec.problems ?? []);
  const idParams = [...route.path.matchAll(/:(\w+)/g)].some(([, name]) => !spec.params?.[name]);
  if (spec.body || spec.query || spec.headers?.length || idParams) statuses.add(400);
  if (!access.public) [401, 403, 429, 503].forEach((status) => statuses.add(status));
  if (route.path.startsWith('/v1/sessions/:id')) statuses.add(404);
  // An erased session answers every read and write with 410; its erasure (a repeat) and its audit still answer.
  if (route.path.startsWith('/v1/sessions/:id') && !/\/(erasure|audit)$/.test(route.path)) statuses.add(410);
  if (spec.body) [413, 415].forEach((status) => statuses.add(status));
  return [...statuses].sort((a, b) => a - b);
}

function parametersOf(route: NestRoute, spec: ApiRouteSpec, components: SchemaComponents): Json[] {
  const path = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: components.of(spec.params?.[name] ?? idSchema) }));
  const query = spec.query ? (components.of(spec.query) as { properties?: Record<string, Json>; required?: string[] }) : {};
  const queries = Object.entries(query.properties ?? {}).map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    required: query.required?.includes(name) ?? false,
    ...(description ? { description } : {}),
    schema,
  }));
  const headers = (spec.headers ?? []).map(({ name, description, schema }) => ({ name, in: 'header', required: false, description, schema: components.of(schema) }));
  return [...path, ...queries, ...headers];
}

function requestBodyOf(body: z.ZodType, components: SchemaComponents): Json {
  const optional = body.safeParse(undefined).success;
  const schema = body instanceof z.ZodOptional ? (body.unwrap() as z.ZodType) : body;
  return { required: !optional, content: { 'application/json': { schema: components.of(schema) } } };
}

/** The operation of one route, from its `@ApiRoute` spec and its access (`@Public` / `@RequireScope`, admin when neither). */
function operationOf(route: NestRoute, spec: ApiRouteSpec, access: Access, components: SchemaComponents) {
  const scope = access.public ? null : (access.scope ?? 'admin');
  const problems = problemStatuses(route, spec, access);
  const responses: Json = {};
  for (const [status, answer] of successAnswersOf(route, spec)) responses[status] = answerResponse(status, answer, components);
  for (const status of problems) responses[status] = problemRef(status);
  const operation = {
    summary: spec.summary,
    description: [spec.description, scope ? `Needs ${scopeText(scope)}.` : 'Open: needs no key.'].filter(Boolean).join('\n\n'),
    parameters: parametersOf(route, spec, components),
    ...(spec.body ? { requestBody: requestBodyOf(spec.body, components) } : {}),
    responses,
    security: scope ? [{ bearer: [] }] : [],
    ...(scope ? { 'x-required-scope': scope } : {}),
  };
  return { operation, problems };
}

/**
 * The OpenAPI document. Paths, methods, tags and operation ids come from Nest's own scan of the controllers
 * (`SwaggerModule.createDocument`); each operation is then filled in from the route's `@ApiRoute` spec, typed by
 * the zod schemas that validate its requests and describe its answers. A route without one keeps Swagger's bare
 * operation (the docs e2e test names it).
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Chronicle')
    .setDescription(INTRO)
    .setVersion('0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'opaque API key', description: 'An API key of `CHRONICLE_API_KEYS` (not a JWT).' }, 'bearer');
  for (const [name, description] of Object.entries(TAGS)) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build());
  const components = new SchemaComponents();
  const reflector = app.get(Reflector);
  const problems = new Set<number>();
  for (const route of nestRoutes(app)) {
    const operations = document.paths[openApiPath(route.path)] as Record<string, Json> | undefined;
    const existing = operations?.[route.method.toLowerCase()];
    const spec = apiRouteSpecOf(route);
    if (!existing || !spec) continue;
    const { operation, problems: statuses } = operationOf(route, spec, accessOf(reflector, route.handler, route.controller), components);
    Object.assign(existing, operation);
    statuses.forEach((status) => problems.add(status));
  }
  for (const [type, schema] of Object.entries(sessionEventSchemas)) components.add(`${type}Data`, schema);
  const responses = problemResponses(problems, components);
  const schemas = Object.fromEntries(Object.entries(components.schemas).sort(([a], [b]) => a.localeCompare(b)));
  return { ...document, components: { ...document.components, schemas, responses } };
}

export function setupDocs(app: INestApplication): void {
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'docs/openapi.json' });
}
