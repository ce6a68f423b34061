import request from 'supertest';
import type { App } from 'supertest/types.js';
import { bearer, KEYS } from './app.js';

type Row = Record<string, unknown>;

export interface JournalEventBody {
  readonly seq: number;
  readonly event: string;
  readonly payload: Record<string, unknown>;
  readonly createdAt: number;
}

export interface TurnBody {
  readonly runId: string;
  readonly text: string;
  readonly submittedAt?: number;
  readonly attachments?: unknown[];
  readonly source?: string | null;
}

/**
 * Awaits a request and answers its response, failing the test (naming the route, the status and the body)
 * unless it answered `status`: setup steps say which of them went wrong instead of a later assertion.
 */
export async function expectStatus(pending: request.Test, status: number): Promise<request.Response> {
  const res = await pending;
  if (res.status !== status) throw new Error(`${pending.method} ${new URL(pending.url).pathname} answered ${res.status}, expected ${status}: ${res.text}`);
  return res;
}

/**
 * The HTTP calls of the e2e specs as the hermes worker (ingest key), a reader and an operator, on the app
 * `server()` answers (a function: the app starts in beforeAll, after the spec module is read).
 * `ingest`, `read` and `admin` answer the request to send and assert on; the named steps send it and
 * fail unless the route answered its success status.
 */
export function ingestClient(server: () => App) {
  const ingest = (path: string) => request(server()).post(path).set(bearer(KEYS.ingest));
  const read = (path: string) => request(server()).get(path).set(bearer(KEYS.read));
  const admin = (path: string) => request(server()).post(path).set(bearer(KEYS.admin));
  return {
    ingest,
    read,
    admin,
    /** POST /v1/sessions (201). */
    startSession: (sessionId: string, attributes: { readonly title?: string | null; readonly createdAt?: number; readonly parentSessionId?: string | null } = {}) =>
      expectStatus(ingest('/v1/sessions').send({ sessionId, ...attributes }), 201),
    /** POST /v1/sessions/{id}/messages: UI rows. */
    recordMessages: (sessionId: string, rows: readonly Row[]) => expectStatus(ingest(`/v1/sessions/${sessionId}/messages`).send({ rows }), 200),
    /** POST /v1/sessions/{id}/submissions: the pending turn. */
    submit: (sessionId: string, turn: TurnBody) => expectStatus(ingest(`/v1/sessions/${sessionId}/submissions`).send(turn), 200),
    /** POST /v1/sessions/{id}/runs/{runId}/settle: the turn's final rows. */
    settle: (sessionId: string, runId: string, rows: readonly Row[], settledAt: number) =>
      expectStatus(ingest(`/v1/sessions/${sessionId}/runs/${runId}/settle`).send({ rows, settledAt }), 200),
    /** POST /v1/sessions/{id}/runs/{runId}/journal. */
    postJournal: (sessionId: string, runId: string, events: readonly JournalEventBody[]) =>
      expectStatus(ingest(`/v1/sessions/${sessionId}/runs/${runId}/journal`).send({ events }), 200),
    /** POST /v1/sessions/{id}/state-rows: agent-store rows, each with its rowId. */
    observeStateRows: (sessionId: string, rows: readonly Row[], observedAt: number) =>
      expectStatus(ingest(`/v1/sessions/${sessionId}/state-rows`).send({ rows, observedAt }), 200),
    /** The types of the session's events, in stream order (GET /v1/sessions/{id}/events). */
    eventTypes: async (sessionId: string): Promise<string[]> =>
      (await expectStatus(read(`/v1/sessions/${sessionId}/events?limit=1000`), 200)).body.items.map((event: { type: string }) => event.type),
  };
}

export type IngestClient = ReturnType<typeof ingestClient>;
