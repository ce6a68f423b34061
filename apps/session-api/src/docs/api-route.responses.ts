import type { ResponseObject } from '@nestjs/swagger';
import { z } from 'zod';
import { problemSchema } from '#platform';
import { type Answer, type EventStreamAnswer, isEventStream, isJsonAnswer, type ResponseHeader } from './api-route.decorator.js';
import type { Json, SchemaComponents } from './schema-components.js';

const REASONS: Readonly<Record<number, string>> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

/** What each problem status means on this service (http-api "Errors"). */
const PROBLEMS: Readonly<Record<number, string>> = {
  400: 'Malformed request: every bad field is named in `errors`. Nothing is stored.',
  401: 'No API key, or one that is not known (`UNAUTHENTICATED`).',
  403: 'The key lacks the scope this route needs (`FORBIDDEN`).',
  404: 'Not found: `SESSION_NOT_FOUND` for a session that was never started (`code` names what is missing).',
  410: 'The session was erased (`SESSION_ERASED`): its content is gone; the answer says when and why. Nothing is stored.',
  409: 'Conflict: the stream moved on past `expectedVersion` (`STREAM_VERSION_CONFLICT`), or a rule refused the request (`code` names it). Nothing is stored.',
  412: '`If-Match` no longer matches the stream version (`PRECONDITION_FAILED`). Nothing is stored.',
  413: 'The body is over the size limit (`PAYLOAD_TOO_LARGE`).',
  415: 'The body is not `application/json` (`UNSUPPORTED_MEDIA_TYPE`).',
  422: 'Well-formed, but refused by a domain rule (`code` names it). Nothing is stored.',
  429: "Over the key's rate limit (`RATE_LIMITED`).",
  503: 'The database is unavailable (`DATABASE_UNAVAILABLE`), or other writers of the session kept moving its stream under every attempt of this write (`WRITE_CONTENTION`), or this replica is shutting down (`SHUTTING_DOWN`): nothing was acknowledged; retry after `Retry-After` with the same natural keys.',
};

const RETRY_AFTER: ResponseHeader = { description: 'Seconds to wait before retrying.', schema: z.number().int().positive() };

function headersOf(headers: Readonly<Record<string, ResponseHeader>> | undefined, components: SchemaComponents): Json | undefined {
  if (!headers) return undefined;
  return Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, { description: header.description, schema: components.of(header.schema) }]));
}

function eventStreamResponse(answer: EventStreamAnswer, components: SchemaComponents): Json {
  const events = Object.entries(answer.events).map(([name, event]) => ({ name, ...event, json: components.of(event.schema) }));
  const named = (ref: unknown) => `\`${String(ref).split('/').at(-1)}\``;
  // A schema component by name, or one of several (a union: `oneOf` / `anyOf` of components).
  const dataOf = (json: Json): string => {
    if (json.$ref) return named(json.$ref);
    const choices = (json.oneOf ?? json.anyOf) as Json[] | undefined;
    return choices?.every((choice) => choice.$ref) ? choices.map((choice) => named(choice.$ref)).join(' or ') : 'JSON';
  };
  const list = events.map(({ name, description, json }) => `- \`${name}\`: ${description} Data: ${dataOf(json)}.`);
  const example = events
    .map(({ name, schema }) => [name, z.globalRegistry.get(schema)?.example] as const)
    .filter(([, data]) => data !== undefined)
    .map(([name, data]) => `${answer.idField ? `id: ${String((data as Record<string, unknown>)[answer.idField])}\n` : ''}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)
    .join('');
  return {
    description: `${answer.description}\n\n${list.join('\n')}`,
    content: {
      'text/event-stream': {
        schema: { type: 'string', description: 'Server-Sent Events: `event:` and `data:` (JSON) lines per event, a blank line after each.' },
        ...(example ? { example } : {}),
        // OpenAPI 3.0 cannot type the events of a stream; generators that know this extension can.
        'x-events': Object.fromEntries(events.map(({ name, description, json }) => [name, { description, schema: json }])),
      },
    },
  };
}

/** The response object of one success answer. */
export function answerResponse(status: number, answer: z.ZodType | Answer, components: SchemaComponents): Json {
  if (answer instanceof z.ZodType) return { description: REASONS[status] ?? 'Success', content: { 'application/json': { schema: components.of(answer) } } };
  if (isEventStream(answer)) return eventStreamResponse(answer, components);
  const headers = headersOf(answer.headers, components);
  const content = isJsonAnswer(answer)
    ? { 'application/json': { schema: components.of(answer.schema) } }
    : answer.mediaType
      ? { [answer.mediaType]: { schema: { type: 'string' } } }
      : undefined;
  return { description: answer.description, ...(headers ? { headers } : {}), ...(content ? { content } : {}) };
}

/** A problem status as a reference to the one response object of that status (`components.responses`). */
export const problemRef = (status: number): Json => ({ $ref: `#/components/responses/Problem${status}` });

/** The response objects of the problem statuses `statuses`, named as `problemRef` refers to them. */
export function problemResponses(statuses: Iterable<number>, components: SchemaComponents): Record<string, ResponseObject> {
  const responses: Record<string, ResponseObject> = {};
  for (const status of [...new Set(statuses)].sort((a, b) => a - b)) {
    const retry = status === 429 || status === 503 ? { headers: headersOf({ 'Retry-After': RETRY_AFTER }, components) } : {};
    responses[`Problem${status}`] = {
      description: PROBLEMS[status] ?? 'Problem details.',
      ...retry,
      content: { 'application/problem+json': { schema: components.of(problemSchema) } },
    } as ResponseObject;
  }
  return responses;
}
