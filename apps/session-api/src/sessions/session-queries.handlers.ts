import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import pg from 'pg';
import type { SessionKeyring } from '#event-store';
import { summarizeJournal } from '#domain';
import { ProblemError } from '#platform';
import { listSessions, SessionViews } from '#read-models';
import { KEYRING, PG_POOL } from '../database/database.module.js';
import { GetRunJournal, GetSessionMarkers, GetSessionSummary, ListSessions, type RunJournalAnswer } from './session.queries.js';
import { refuseErased, sessionErased, sessionNotFound } from './session-not-found.js';
import { toSessionSummary } from './session-summary.js';

@QueryHandler(ListSessions)
export class ListSessionsHandler implements IQueryHandler<ListSessions> {
  constructor(
    @Inject(PG_POOL) private readonly pool: pg.Pool,
    @Inject(KEYRING) private readonly keyring: SessionKeyring | null,
  ) {}

  execute({ query }: ListSessions) {
    return listSessions(this.pool, query, this.keyring);
  }
}

/** The session's view at its current version; 404 for a session that was never started. */
async function viewOf(views: SessionViews, sessionId: string) {
  const result = await views.view(sessionId);
  if (!result.exists) throw sessionNotFound(sessionId);
  if (result.state.erased !== null) throw sessionErased(sessionId, result.state.erased);
  return result;
}

@QueryHandler(GetSessionSummary)
export class GetSessionSummaryHandler implements IQueryHandler<GetSessionSummary> {
  constructor(private readonly views: SessionViews) {}

  async execute({ sessionId }: GetSessionSummary) {
    const { version, view } = await viewOf(this.views, sessionId);
    return toSessionSummary(sessionId, version, view);
  }
}

@QueryHandler(GetSessionMarkers)
export class GetSessionMarkersHandler implements IQueryHandler<GetSessionMarkers> {
  constructor(private readonly views: SessionViews) {}

  async execute({ sessionId }: GetSessionMarkers) {
    const { view } = await viewOf(this.views, sessionId);
    return { items: view.markers };
  }
}

@QueryHandler(GetRunJournal)
export class GetRunJournalHandler implements IQueryHandler<GetRunJournal> {
  constructor(private readonly views: SessionViews) {}

  async execute({ sessionId, runId }: GetRunJournal): Promise<RunJournalAnswer> {
    const { exists, run } = await this.views.loadRun(sessionId, runId);
    if (!exists) throw sessionNotFound(sessionId);
    await refuseErased(this.views, sessionId);
    // A run the session never heard of (no submission, journal or decision) is not there; a known run
    // without a journal reads as zero events (terminalState "unknown"), as a missing journal file does.
    if (!run) throw new ProblemError(404, 'RUN_NOT_FOUND', `Run ${runId} is unknown to session ${sessionId}.`);
    const { events, lastSeq, gaps, terminal, terminalState } = summarizeJournal(runId, run.journal);
    return { runId, events, lastSeq, gaps, terminal, terminalState };
  }
}
