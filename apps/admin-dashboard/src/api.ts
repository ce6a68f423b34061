/** The parts of the session API the dashboard reads (../shared/design/http-api.md is the contract). */
import createClient, { type Client } from 'openapi-fetch';
import type {
  CompactTranscriptPatchEvent,
  MessageRow,
  paths,
  RunJournal,
  Schemas,
  SessionEventsPage,
  StreamingOutput,
  TranscriptPatchEvent,
  TranscriptView,
} from '../../../libs/client/src/api-types.js';

export type { Marker, MessageRow, SessionSummary, ToolCard, Transcript } from '../../../libs/client/src/api-types.js';

/**
 * The shapes of the HTTP contract are the client library's, generated from the service's OpenAPI document
 * (`npm run generate:client`): a change of the API that the dashboard does not follow fails its type check.
 */
export type Scope = Schemas['KeyScopes']['scopes'][number];
export type SessionStatus = NonNullable<Schemas['SessionSummary']['status']>;
/**
 * Every status of the contract, each once, in the order the dashboard offers them: a record over the generated
 * union, so a status the API adds or drops fails the type check until it is listed here (the list cannot drift).
 */
const STATUSES = { active: true, pending: true, recovering: true, interrupted: true, archived: true, erased: true } as const satisfies Record<SessionStatus, true>;
export const SESSION_STATUSES = Object.keys(STATUSES) as readonly SessionStatus[];

/** The problem details the service sends; the dashboard's own (no answer, not problem details) have only a title, status and detail. */
export type Problem = Pick<Schemas['Problem'], 'title' | 'status'> & Partial<Omit<Schemas['Problem'], 'title' | 'status'>>;
/** The content parts the dashboard renders (the contract leaves a part's shape open). */
export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; imageUrl?: { url?: string } } | { type: string; [key: string]: unknown };
/** A row's content parts, as the dashboard reads them. */
export const contentParts = (content: MessageRow['content']): readonly ContentPart[] => (Array.isArray(content) ? (content as ContentPart[]) : []);
export type MarkerStatus = Schemas['Marker']['status'];
export type Streaming = StreamingOutput;
export type PendingTurn = Schemas['PendingTurn'];
export type MarkerCounts = Schemas['MarkerCounts'];
export type SessionPage = Schemas['SessionListPage'];
export type View = TranscriptView;
/**
 * A `/live?patches=1` event, whole or compact (`compact=1`: the lists only when they changed, `streamingDelta`):
 * keep the first `from` rows, append `messages`.
 */
export type TranscriptPatch = TranscriptPatchEvent | CompactTranscriptPatchEvent;
export type StoredEvent = Schemas['StoredEvent'];
export type EventPage = SessionEventsPage;
export type JournalEvent = Schemas['JournalEvent'];
export type Journal = RunJournal;
export type SessionAudit = Schemas['SessionAudit'];
/** `POST /v1/audit` (202) and `GET /v1/audit/{jobId}`: a whole-store audit job. */
export type AuditJob = Schemas['AuditJob'];
export type StoreAudit = NonNullable<AuditJob['result']>;
export type SweepResult = Schemas['SweepResult'];

/** An answer that was not 2xx, as the problem details the API sent (or the closest we can say). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ? `${problem.title}: ${problem.detail}` : problem.title);
  }
}

export async function problemOf(response: Response): Promise<Problem> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<Problem>;
    if (typeof body.title === 'string') return { ...body, title: body.title, status: response.status };
  } catch {
    // Not problem details (a proxy's page): say what we know.
  }
  return { title: response.statusText || `HTTP ${response.status}`, status: response.status, detail: text.slice(0, 200) || undefined };
}

const networkProblem = (error: unknown): Problem => ({
  title: 'The service did not answer',
  status: 0,
  detail: error instanceof Error ? error.message : String(error),
});

export const path = (template: TemplateStringsArray, ...values: (string | number)[]) =>
  template.reduce((out, part, i) => out + part + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '');

/** What every openapi-fetch call answers. */
interface Answered<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

/**
 * Every call carries the key in the Authorization header, never in a URL. `http` is the openapi-fetch client
 * over the `paths` of the service's OpenAPI document (the client library's generated types): each route, its
 * parameters and its answer are typed from the contract; `call` answers the body or throws an `ApiError`.
 */
export class Api {
  readonly http: Client<paths>;

  constructor(readonly key: string) {
    // A relative base: the dashboard is served by the API itself, on its origin.
    this.http = createClient<paths>({ baseUrl: '', headers: this.headers(), cache: 'no-store' });
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Authorization: `Bearer ${this.key}`, Accept: 'application/json', ...extra };
  }

  /** The success body of a typed call, or its problem details as an `ApiError` (a network failure too). */
  async call<T>(request: Promise<Answered<T>>, signal?: AbortSignal): Promise<T> {
    let answered: Answered<T>;
    try {
      answered = await request;
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError(networkProblem(error));
    }
    const { data, error, response } = answered;
    if (!response.ok) throw new ApiError(problemFromBody(error, response));
    return data as T;
  }

  scopes(): Promise<Scope[]> {
    return this.call(this.http.GET('/v1/key')).then((answer) => [...answer.scopes]);
  }
}

/** Problem details from an answer's parsed body (openapi-fetch parses it), or the closest we can say. */
function problemFromBody(body: unknown, response: Response): Problem {
  const problem = body as Partial<Problem> | undefined;
  if (problem && typeof problem === 'object' && typeof problem.title === 'string') return { ...problem, title: problem.title, status: response.status };
  const text = typeof body === 'string' ? body : '';
  return { title: response.statusText || `HTTP ${response.status}`, status: response.status, detail: text.slice(0, 200) || undefined };
}
