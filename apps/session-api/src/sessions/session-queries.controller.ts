import { Controller, Get, Headers, Query as QueryParams, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { RequireScope, ZodValidationPipe } from '#platform';
import { GetTranscript } from './get-transcript.query.js';
import { IdParam } from './session-id.js';
import { sessionListQuery, type SessionListQuery } from './session-list.js';
import { GetRunJournal, GetSessionMarkers, GetSessionSummary, ListSessions } from './session.queries.js';

export const transcriptQuery = z.object({
  view: z.enum(['display', 'context']).default('display'),
  at: z.coerce.number().int().min(1).optional(),
  /** A version the client holds: answer the delta from it. */
  since: z.coerce.number().int().min(0).optional(),
  /** `1`: add what the pending turn's journal has produced so far. */
  streaming: z.enum(['0', '1']).default('0').transform((value) => value === '1'),
});

/** Read routes: everything here is folded from the session's events up to its current version (or `at`). */
@ApiTags('sessions')
@ApiBearerAuth()
@Controller('v1/sessions')
@RequireScope('read')
export class SessionQueriesController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  list(@QueryParams(new ZodValidationPipe(sessionListQuery, 'query')) query: SessionListQuery) {
    return this.queries.execute(new ListSessions(query));
  }

  @Get(':id')
  summary(@IdParam('id') id: string) {
    return this.queries.execute(new GetSessionSummary(id));
  }

  @Get(':id/transcript')
  async transcript(
    @IdParam('id') sessionId: string,
    @QueryParams(new ZodValidationPipe(transcriptQuery, 'query')) query: z.infer<typeof transcriptQuery>,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Headers('accept-encoding') acceptEncoding: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { view, at, since, streaming } = query;
    const answer = await this.queries.execute(new GetTranscript(sessionId, { view, at, since, streaming }, { ifNoneMatch, acceptEncoding }));
    reply.header('ETag', answer.etag).header('Vary', 'Accept-Encoding');
    if (answer.notModified) {
      reply.status(304);
      return undefined;
    }
    reply.header('Content-Type', 'application/json; charset=utf-8');
    if (answer.coding !== 'identity') reply.header('Content-Encoding', answer.coding);
    return answer.bytes;
  }

  @Get(':id/markers')
  markers(@IdParam('id') id: string) {
    return this.queries.execute(new GetSessionMarkers(id));
  }

  @Get(':id/runs/:runId/journal')
  journal(@IdParam('id') sessionId: string, @IdParam('runId') runId: string) {
    return this.queries.execute(new GetRunJournal(sessionId, runId));
  }
}
