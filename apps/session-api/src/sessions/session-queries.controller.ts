import { Controller, Get, Headers, Inject, Query as QueryParams, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import pg from 'pg';
import { z } from 'zod';
import { runOf, summarizeJournal } from '#domain';
import { ProblemError, RequireScope, ZodValidationPipe } from '#platform';
import { chooseCoding, EncodedAnswers, listSessions, SessionViews, transcriptAnswerJson } from '#read-models';
import { PG_POOL } from '../database/database.module.js';
import { IdParam } from './session-id.js';
import { sessionListQuery, type SessionListQuery } from './session-list.js';
import { toSessionSummary } from './session-summary.js';
import { sessionNotFound } from './session-not-found.js';
import { isNotModified, transcriptEtag } from './transcript-etag.js';
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
  constructor(
    private readonly views: SessionViews,
    private readonly answers: EncodedAnswers,
    @Inject(PG_POOL) private readonly pool: pg.Pool,
  ) {}

  @ApiRoute({
    summary: 'List sessions (status filter, search, cursor paging)',
    description:
      '`q` is a case-insensitive substring of title or id. Status: `pending` (a turn submitted, not yet settled or decided), `recovering` (a marker in `pending_journal`), `interrupted` (the latest turn ended in a marker), `archived` (a compressed parent), `active` (none of these). From the async session index, newest activity first.',
    query: sessionListQuery,
    ok: sessionListAnswer,
  })
  @Get()
  list(@QueryParams(new ZodValidationPipe(sessionListQuery, 'query')) query: SessionListQuery) {
    return listSessions(this.pool, query);
  }

  private async found(sessionId: string, at?: number) {
    const result = await this.views.view(sessionId, at);
    if (!result.exists) throw sessionNotFound(sessionId);
    return { sessionId, ...result };
  }

  @ApiRoute({ summary: 'Session summary, folded at the current version', ok: sessionSummaryAnswer })
  @Get(':id')
  async summary(@IdParam('id') id: string) {
    const { sessionId, version, view } = await this.found(id);
    return toSessionSummary(sessionId, version, view);
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
    const { since, streaming } = query;
    const read =
      since === undefined
        ? { ...(await this.views.transcript(sessionId, query.view, query.at)), delta: null }
        : await this.views.transcriptSince(sessionId, query.view, since, query.at).then((at) => ({ ...at, delta: at }));
    if (!read.exists) throw sessionNotFound(sessionId);
    const { version, transcript, view, state, delta } = read;
    const { toolCards, hash } = transcript;
    // One representation per (view, version, since, streaming): each its own strong tag.
    const variant = `${since === undefined ? '' : `-since${since}`}${streaming ? '-streaming' : ''}`;
    const etag = transcriptEtag(query.view, version, hash, variant);
    reply.header('ETag', etag).header('Vary', 'Accept-Encoding');
    if (isNotModified(ifNoneMatch, etag)) {
      reply.status(304);
      return undefined;
    }
    const tail = streaming ? { streaming: this.views.streaming(sessionId, version, state) } : {};
    // Serialised once per representation and compressed once per coding, whoever asks; the rows of a
    // transcript that several versions share are serialised once for all of them.
    const key = `${sessionId}@${version}/${query.view}${variant}`;
    const answer = this.answers.get(key, () => {
      const head = { sessionId, version, view: query.view };
      if (delta === null) return { etag, json: transcriptAnswerJson(head, transcript, tail) };
      if (delta.from === 0) return { etag, json: transcriptAnswerJson({ ...head, since, from: 0 }, transcript, { markers: view.markers, ...tail }) };
      return { etag, body: { ...head, since, from: delta.from, messages: delta.messages, toolCards, markers: view.markers, hash, ...tail } };
    });
    const coding = chooseCoding(acceptEncoding, answer.identity.length);
    reply.header('Content-Type', 'application/json; charset=utf-8');
    if (coding !== 'identity') reply.header('Content-Encoding', coding);
    return this.answers.encode(key, answer, coding);
  }

  @ApiRoute({
    summary: '"Response interrupted" markers, derived from the recovery decisions',
    description: 'Runs that ended without a marker (settled from a completed journal, replaced by a gateway error, recovered from the agent store) are not listed.',
    ok: markersAnswer,
  })
  @Get(':id/markers')
  async markers(@IdParam('id') id: string) {
    const { view } = await this.found(id);
    return { items: view.markers };
  }

  @ApiRoute({
    summary: 'The run journal read model: events, lastSeq, gaps, terminal state',
    description: 'A known run without a journal reads as zero events (`unknown`); a run the session never heard of is 404 `RUN_NOT_FOUND`.',
    ok: runJournalAnswer,
  })
  @Get(':id/runs/:runId/journal')
  async journal(@IdParam('id') sessionId: string, @IdParam('runId') runId: string) {
    const loaded = await this.views.load(sessionId);
    if (!loaded.exists) throw sessionNotFound(sessionId);
    // A run the session never heard of (no submission, journal or decision) is not there; a known run
    // without a journal reads as zero events (terminalState "unknown"), as a missing journal file does.
    const run = runOf(loaded.state, runId);
    if (!run) throw new ProblemError(404, 'RUN_NOT_FOUND', `Run ${runId} is unknown to session ${sessionId}.`);
    const summary = summarizeJournal(runId, run.journal);
    return {
      runId,
      events: summary.events,
      lastSeq: summary.lastSeq,
      gaps: summary.gaps,
      terminal: summary.terminal,
      terminalState: summary.terminalState,
    };
  }
}
