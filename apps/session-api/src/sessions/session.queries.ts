import { Query } from '@nestjs/cqrs';
import type { JournalSummary, SessionView } from '#domain';
import type { listSessions } from '#read-models';
import type { SessionListQuery } from './session-list.js';
import type { toSessionSummary } from './session-summary.js';

/** The read use cases of `/v1/sessions` (scope `read`); the transcript has its own (`GetTranscript`). */

/** `GET /v1/sessions`: the session index, filtered and paged. */
export class ListSessions extends Query<Awaited<ReturnType<typeof listSessions>>> {
  constructor(readonly query: SessionListQuery) {
    super();
  }
}

/** `GET /v1/sessions/{id}`: the SessionSummary at the stream's current version. */
export class GetSessionSummary extends Query<ReturnType<typeof toSessionSummary>> {
  constructor(readonly sessionId: string) {
    super();
  }
}

/** `GET /v1/sessions/{id}/markers`. */
export class GetSessionMarkers extends Query<{ items: SessionView['markers'] }> {
  constructor(readonly sessionId: string) {
    super();
  }
}

export type RunJournalAnswer = Pick<JournalSummary, 'runId' | 'events' | 'lastSeq' | 'gaps' | 'terminal' | 'terminalState'>;

/** `GET /v1/sessions/{id}/runs/{runId}/journal`: 404 for a run the session never heard of. */
export class GetRunJournal extends Query<RunJournalAnswer> {
  constructor(
    readonly sessionId: string,
    readonly runId: string,
  ) {
    super();
  }
}
