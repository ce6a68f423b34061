import type { components, paths } from './generated/openapi.js';
export type { paths };

/** The shapes of the HTTP contract, as the server's OpenAPI document names them (generated/openapi.ts). */
export type Schemas = components['schemas'];
export type WriteResult = Schemas['WriteResult'];
export type MessageRow = Schemas['MessageRow'];
export type StateRow = Schemas['StateRow'];
export type ToolCard = Schemas['ToolCard'];
export type Marker = Schemas['Marker'];
export type Transcript = Schemas['Transcript'];
export type TranscriptDelta = Schemas['TranscriptDelta'];
export type TranscriptPatchEvent = Schemas['TranscriptPatchEvent'];
export type CompactTranscriptPatchEvent = Schemas['CompactTranscriptPatchEvent'];
export type StreamingDelta = Schemas['StreamingDelta'];
export type StreamingOutput = Schemas['StreamingOutput'];
export type SessionSummary = Schemas['SessionSummary'];
export type SessionEventsPage = Schemas['SessionEventsPage'];
export type SessionListPage = Schemas['SessionListPage'];
export type StoredEvent = Schemas['StoredEvent'];
export type RunJournal = Schemas['RunJournal'];
export type ProblemDetails = Schemas['Problem'];
export type TranscriptView = NonNullable<Transcript['view']>;

/** The JSON body an operation takes. */
export type JsonBody<Operation> = Operation extends { requestBody?: { content: { 'application/json': infer Body } } } ? Body : never;
/** The query an operation takes. */
export type QueryOf<Operation> = Operation extends { parameters: { query?: infer Query } } ? NonNullable<Query> : never;

type Post<Path extends keyof paths> = paths[Path] extends { post: infer Operation } ? Operation : never;

export type StartSessionBody = JsonBody<Post<'/v1/sessions'>>;
export type SubmissionBody = JsonBody<Post<'/v1/sessions/{id}/submissions'>>;
export type JournalBody = JsonBody<Post<'/v1/sessions/{id}/runs/{runId}/journal'>>;
export type JournalEventBody = JournalBody['events'][number];
export type SettleBody = JsonBody<Post<'/v1/sessions/{id}/runs/{runId}/settle'>>;
export type MessagesBody = JsonBody<Post<'/v1/sessions/{id}/messages'>>;
export type StateRowsBody = JsonBody<Post<'/v1/sessions/{id}/state-rows'>>;
export type TranscriptQuery = QueryOf<paths['/v1/sessions/{id}/transcript']['get']>;
export type EventsQuery = QueryOf<paths['/v1/sessions/{id}/events']['get']>;
export type SessionListQuery = QueryOf<paths['/v1/sessions']['get']>;

/**
 * The messages of `GET /v1/ingest` (a WebSocket): each `op` and the HTTP route whose body it carries, exactly.
 * `runId` is the route's `{runId}` for the ops that have one.
 */
export interface IngestOps {
  readonly journal: JournalBody;
  readonly submission: SubmissionBody;
  readonly settle: SettleBody;
  readonly 'state-rows': StateRowsBody;
  readonly messages: MessagesBody;
}
export type IngestOp = keyof IngestOps;
