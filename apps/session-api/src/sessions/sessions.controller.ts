import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Post, Query as QueryParams, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { epochSecondsSchema as epochSeconds, idSchema as id } from '#domain';
import { RequireScope, ZodValidationPipe } from '#platform';
import { requestIdOf } from './request-id.js';
import { IdParam } from './session-id.js';
import { GetSessionEvents, type SessionEventsPage } from './get-session-events.query.js';
import { ExecuteSessionCommand } from './execute-session-command.command.js';
import type { WriteResult } from '#session-commands';
import { ApiRoute } from '../docs/api-route.decorator.js';
import { writeResultAnswer } from './ingestion.schemas.js';
import { sessionEventsPageAnswer } from './sessions.schemas.js';


export const startSessionBody = z.strictObject({
  sessionId: id.optional(),
  title: z.string().max(1000).nullish(),
  parentSessionId: id.nullish(),
  createdAt: epochSeconds.optional(),
});

export const eventsQuery = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});


@ApiTags('sessions')
@ApiBearerAuth()
@Controller('v1/sessions')
export class SessionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    summary: 'Start a session (SessionStarted)',
    description: 'Without `sessionId` the service picks one. Starting a session that exists with the same title and parent is a duplicate (200); with another, 409 `SESSION_ALREADY_EXISTS`.',
    body: startSessionBody,
    ok: { description: 'Created: the session started.', schema: writeResultAnswer },
    also: { 200: { description: 'The session exists already: nothing appended, `duplicate: true`.', schema: writeResultAnswer } },
    problems: [409],
  })
  @Post()
  @RequireScope('ingest')
  async start(
    @Body(new ZodValidationPipe(startSessionBody)) body: z.infer<typeof startSessionBody>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) response: FastifyReply,
  ): Promise<WriteResult> {
    const sessionId = body.sessionId ?? randomUUID();
    const result = await this.commands.execute(
      new ExecuteSessionCommand(
        sessionId,
        {
          type: 'StartSession',
          data: {
            sessionId,
            title: body.title ?? null,
            parentSessionId: body.parentSessionId ?? null,
            createdAt: body.createdAt ?? Date.now() / 1000,
          },
        },
        { requestId: requestIdOf(request) },
      ),
    );
    response.status(result.duplicate ? 200 : 201);
    return result;
  }

  @ApiRoute({
    summary: 'The session stream, page by page',
    description: '`after` is a stream version: the page holds the events with a greater version, oldest first.',
    query: eventsQuery,
    ok: sessionEventsPageAnswer,
  })
  @Get(':id/events')
  @RequireScope('read')
  events(
    @IdParam('id') sessionId: string,
    @QueryParams(new ZodValidationPipe(eventsQuery, 'query')) query: z.infer<typeof eventsQuery>,
  ): Promise<SessionEventsPage> {
    return this.queries.execute(new GetSessionEvents(sessionId, query.after, query.limit));
  }
}
