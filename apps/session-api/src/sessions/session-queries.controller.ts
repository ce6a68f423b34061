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
import { ApiRoute } from '../docs/api-route.decorator.js';
import {
  ETAG,
  IF_NONE_MATCH,
  markersAnswer,
  runJournalAnswer,
  sessionListAnswer,
  sessionSummaryAnswer,
  transcriptReadAnswer,
} from './session-queries.schemas.js';

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

  @ApiRoute({
    summary: 'List sessions (status filter, search, cursor paging)',
    description:
      '`q` is a case-insensitive substring of title or id. With content sealed (the default), titles are sealed at rest too, so a search opens rows in chunks and reads at most 5,000 index rows per request: a page may hold fewer than `limit` items while `nextCursor` is set — keep following it. Status: `pending` (a turn submitted, not yet settled or decided), `recovering` (a marker in `pending_journal`), `interrupted` (the latest turn ended in a marker), `archived` (a compressed parent), `active` (none of these). From the async session index, newest activity first.',
    query: sessionListQuery,
    ok: sessionListAnswer,
  })
  @Get()
  list(@QueryParams(new ZodValidationPipe(sessionListQuery, 'query')) query: SessionListQuery) {
    return this.queries.execute(new ListSessions(query));
  }

  @ApiRoute({ summary: 'Session summary, folded at the current version', ok: sessionSummaryAnswer })
  @Get(':id')
  summary(@IdParam('id') id: string) {
    return this.queries.execute(new GetSessionSummary(id));
  }

  @ApiRoute({
    summary: 'The display or context transcript',
    description:
      "`at` rebuilds the transcript as of that stream version (time travel). With `since` (a version the client holds) the answer is the delta (`TranscriptDelta`): keep the first `from` rows, append `messages`; the result is the transcript at `version` with that `hash`. `streaming=1` adds what the pending turn's journal has produced so far. Compressed (gzip, br) on `Accept-Encoding`.",
    query: transcriptQuery,
    headers: [IF_NONE_MATCH],
    ok: { description: 'The transcript (`Transcript`), or with `since` its delta (`TranscriptDelta`).', schema: transcriptReadAnswer, headers: { ETag: ETAG } },
    also: { 304: { description: 'Not modified: `If-None-Match` holds the current ETag.', headers: { ETag: ETAG } } },
  })
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

  @ApiRoute({
    summary: '"Response interrupted" markers, derived from the recovery decisions',
    description: 'Runs that ended without a marker (settled from a completed journal, replaced by a gateway error, recovered from the agent store) are not listed.',
    ok: markersAnswer,
  })
  @Get(':id/markers')
  markers(@IdParam('id') id: string) {
    return this.queries.execute(new GetSessionMarkers(id));
  }

  @ApiRoute({
    summary: 'The run journal read model: events, lastSeq, gaps, terminal state',
    description: 'A known run without a journal reads as zero events (`unknown`); a run the session never heard of is 404 `RUN_NOT_FOUND`.',
    ok: runJournalAnswer,
  })
  @Get(':id/runs/:runId/journal')
  journal(@IdParam('id') sessionId: string, @IdParam('runId') runId: string) {
    return this.queries.execute(new GetRunJournal(sessionId, runId));
  }
}
