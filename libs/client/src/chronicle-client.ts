import createClient, { type Client } from 'openapi-fetch';
import type {
  EventsQuery,
  JournalEventBody,
  MessageRow,
  RunJournal,
  Marker,
  SessionEventsPage,
  SessionListPage,
  SessionListQuery,
  SessionSummary,
  SettleBody,
  StartSessionBody,
  StateRowsBody,
  StoredEvent,
  SubmissionBody,
  Transcript,
  TranscriptDelta,
  TranscriptQuery,
  WriteResult,
} from './api-types.js';
import { ChronicleProblem } from './chronicle-problem.js';
import type { paths } from './generated/openapi.js';
import { JournalWriter, type JournalWriterOptions } from './journal-writer.js';
import { TranscriptWatcher, type WatchOptions } from './transcript-watcher.js';

export interface ChronicleClientOptions {
  /** The service's origin, e.g. `http://localhost:8080`. */
  readonly baseUrl: string;
  /** An API key of `CHRONICLE_API_KEYS`: scope `ingest` to write, `read` to read and watch. */
  readonly apiKey: string;
  /** A fetch to use instead of the global one (a proxy agent, a test double). */
  readonly fetch?: typeof globalThis.fetch;
}

/** What every openapi-fetch call answers: the parsed body on success, the parsed error otherwise. */
interface Answered<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

/** The success body of a call, or its problem details thrown as a `ChronicleProblem`. */
export async function answerOf<T>(call: Promise<Answered<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw ChronicleProblem.from(response.status, error);
  return data as T;
}

const trimmed = (baseUrl: string) => baseUrl.replace(/\/+$/, '');

/**
 * A typed client of the HTTP contract: `api` is the openapi-fetch client over the paths the server's OpenAPI
 * document declares (every route, typed), and the helpers below are the calls a worker and a reader make most,
 * answering the success body and throwing a `ChronicleProblem` on a problem-details answer.
 */
export function createChronicleClient(options: ChronicleClientOptions) {
  const baseUrl = trimmed(options.baseUrl);
  const api: Client<paths> = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${options.apiKey}` }, fetch: options.fetch });
  const session = (id: string) => ({ params: { path: { id } } });
  const run = (id: string, runId: string) => ({ params: { path: { id, runId } } });
  const calls = {
    api,
    options: { ...options, baseUrl },
    /** `POST /v1/sessions`: starts a session (a repeat answers `duplicate: true`). */
    startSession: (body: StartSessionBody = {}): Promise<WriteResult> => answerOf(api.POST('/v1/sessions', { body })),
    /** `POST …/submissions`: a user turn starts. */
    submit: (sessionId: string, body: SubmissionBody): Promise<WriteResult> => answerOf(api.POST('/v1/sessions/{id}/submissions', { ...session(sessionId), body })),
    /** `POST …/runs/{runId}/journal`: worker journal events (1..1000), each kept once per `(runId, seq)`. */
    journal: (sessionId: string, runId: string, events: readonly JournalEventBody[]): Promise<WriteResult> =>
      answerOf(api.POST('/v1/sessions/{id}/runs/{runId}/journal', { ...run(sessionId, runId), body: { events: [...events] } })),
    /** `POST …/runs/{runId}/settle`: the worker finished; `rows` are the turn's display rows. */
    settle: (sessionId: string, runId: string, body: SettleBody): Promise<WriteResult> =>
      answerOf(api.POST('/v1/sessions/{id}/runs/{runId}/settle', { ...run(sessionId, runId), body })),
    /** `POST …/messages`: rows the UI owns and committed. */
    recordMessages: (sessionId: string, rows: readonly MessageRow[]): Promise<WriteResult> =>
      answerOf(api.POST('/v1/sessions/{id}/messages', { ...session(sessionId), body: { rows: [...rows] } })),
    /** `POST …/state-rows`: rows read from the agent's own store. */
    observeStateRows: (sessionId: string, body: StateRowsBody): Promise<WriteResult> =>
      answerOf(api.POST('/v1/sessions/{id}/state-rows', { ...session(sessionId), body })),
    /** `GET /v1/sessions/{id}`: the session's summary. */
    session: (sessionId: string): Promise<SessionSummary> => answerOf(api.GET('/v1/sessions/{id}', session(sessionId))),
    /** `GET …/transcript`: the whole transcript (`view`, `at` for time travel, `streaming: '1'`). */
    transcript: (sessionId: string, query: Omit<TranscriptQuery, 'since'> = {}): Promise<Transcript> =>
      answerOf(api.GET('/v1/sessions/{id}/transcript', { params: { path: { id: sessionId }, query } })) as Promise<Transcript>,
    /** `GET …/transcript?since=`: what changed since a version the client holds (keep `from` rows, append `messages`). */
    transcriptSince: (sessionId: string, since: number, query: Omit<TranscriptQuery, 'since'> = {}): Promise<TranscriptDelta> =>
      answerOf(api.GET('/v1/sessions/{id}/transcript', { params: { path: { id: sessionId }, query: { ...query, since } } })) as Promise<TranscriptDelta>,
    /** `GET …/events`: the session's stored events after a version. */
    events: (sessionId: string, query: EventsQuery = {}): Promise<SessionEventsPage> =>
      answerOf(api.GET('/v1/sessions/{id}/events', { params: { path: { id: sessionId }, query } })),
    /** `GET …/runs/{runId}/journal`: a run's journal, its gaps and terminal state. */
    runJournal: (sessionId: string, runId: string): Promise<RunJournal> => answerOf(api.GET('/v1/sessions/{id}/runs/{runId}/journal', run(sessionId, runId))),
    /** `GET …/markers`: the session's recovery markers (`Response interrupted` and the rest). */
    markers: async (sessionId: string): Promise<Marker[]> => (await answerOf(api.GET('/v1/sessions/{id}/markers', session(sessionId)))).items,
    /** `GET /v1/sessions`: one page of the list (`status`, `q`, `limit`, `cursor`); `eachSession` follows the pages. */
    sessions: (query: SessionListQuery = {}): Promise<SessionListPage> => answerOf(api.GET('/v1/sessions', { params: { query } })),
  };
  return {
    ...calls,
    /**
     * Every session the list holds for a query, page after page (`nextCursor`), newest activity first:
     * `for await (const summary of client.eachSession({ status: 'interrupted' }))`. A page can hold fewer than
     * `limit` items while more follow (a title search over sealed titles reads a bounded number of rows a
     * request), so this, not a short page, says when the list ends. `limit` sets the page size.
     */
    eachSession: (query: Omit<SessionListQuery, 'cursor'> = {}): AsyncGenerator<SessionSummary> =>
      pages((cursor: string | null) => calls.sessions(cursor === null ? query : { ...query, cursor }), (page) => [page.items, page.nextCursor]),
    /**
     * A session's stored events after `after` (0: all), page after page (`nextAfter`), in version order; `limit`
     * sets the page size. Events appended while it reads are read too, up to the head the last page saw.
     */
    eachEvent: (sessionId: string, query: EventsQuery = {}): AsyncGenerator<StoredEvent> =>
      pages((after: number | null) => calls.events(sessionId, after === null ? query : { ...query, after }), (page) => [page.items, page.nextAfter]),
    /** Follows the session's transcript (`GET …/live?patches=1`): `for await (const state of client.watch(id))`. */
    watch: (sessionId: string, watchOptions: WatchOptions = {}) => new TranscriptWatcher(calls, sessionId, watchOptions),
    /** A `JournalWriter` over `/v1/ingest` with this client's service and key. */
    journalWriter: (writerOptions: Omit<JournalWriterOptions, 'baseUrl' | 'apiKey'> = {}) => new JournalWriter({ ...writerOptions, baseUrl, apiKey: options.apiKey }),
  };
}

export type ChronicleClient = ReturnType<typeof createChronicleClient>;

/** The items of every page, fetching the next (from the cursor the page names) only once the caller reads past the last. */
async function* pages<Page, Item, Cursor>(fetchPage: (cursor: Cursor | null) => Promise<Page>, split: (page: Page) => [readonly Item[], Cursor | null]): AsyncGenerator<Item> {
  let cursor: Cursor | null = null;
  do {
    const [items, next] = split(await fetchPage(cursor));
    yield* items;
    cursor = next;
  } while (cursor !== null);
}
