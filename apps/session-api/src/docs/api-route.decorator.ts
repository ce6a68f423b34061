import { SetMetadata } from '@nestjs/common';
import type { z } from 'zod';

export const API_ROUTE = 'chronicle:api-route';

/** A request header a route reads (`If-Match`, `Idempotency-Key`, …); always optional. */
export interface RequestHeader {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodType;
}

/** A response header a route sets (`ETag`, `Location`). */
export interface ResponseHeader {
  readonly description: string;
  readonly schema: z.ZodType;
}

/** A JSON answer: its schema is the one that documents it (and the docs e2e test checks real answers with). */
export interface JsonAnswer {
  readonly description: string;
  readonly schema: z.ZodType;
  readonly headers?: Readonly<Record<string, ResponseHeader>>;
}

/** Server-Sent Events: each event name with the JSON its `data:` line carries. */
export interface EventStreamAnswer {
  readonly description: string;
  /** The data field each event's `id:` line repeats (Last-Event-ID resumes from it); none when events carry no id. */
  readonly idField?: string;
  readonly events: Readonly<Record<string, { readonly description: string; readonly schema: z.ZodType }>>;
}

/** A non-JSON body (Prometheus text) or none (304). */
export interface OtherAnswer {
  readonly description: string;
  readonly mediaType?: string;
  readonly headers?: Readonly<Record<string, ResponseHeader>>;
}

export type Answer = JsonAnswer | EventStreamAnswer | OtherAnswer;

export const isJsonAnswer = (answer: Answer): answer is JsonAnswer => 'schema' in answer;
export const isEventStream = (answer: Answer): answer is EventStreamAnswer => 'events' in answer;

/**
 * What the OpenAPI document says of one controller method. Path, method, tag and scope are not repeated here:
 * the document builder reads them from the route's own metadata (`@Get`, `@ApiTags`, `@RequireScope`), and the
 * success status from `@HttpCode` (else Nest's default for the method).
 */
export interface ApiRouteSpec {
  readonly summary: string;
  readonly description?: string;
  /** The request body (optional when the schema accepts `undefined`). */
  readonly body?: z.ZodType;
  readonly query?: z.ZodObject;
  /** Path parameters that are not contract ids (ids are documented as such by default). */
  readonly params?: Readonly<Record<string, z.ZodType>>;
  readonly headers?: readonly RequestHeader[];
  /** The success answer: a JSON schema, or a described answer. */
  readonly ok: z.ZodType | Answer;
  /** Other answers of the route by status: `POST /v1/sessions`'s 200 duplicate, a transcript's 304. */
  readonly also?: Readonly<Record<number, Answer>>;
  /** Problem statuses beyond those every route of its kind answers (auth, validation, unknown session, …). */
  readonly problems?: readonly number[];
}

/** Documents a controller method in the OpenAPI document (see `buildOpenApiDocument`). */
export const ApiRoute = (spec: ApiRouteSpec) => SetMetadata(API_ROUTE, spec);
