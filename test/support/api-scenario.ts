import request from 'supertest';
import type { App } from 'supertest/types.js';
import { bearer, KEYS } from './app.js';
import { pollUntil } from './poll.js';
import { openEventStream, type ServerSentEvent } from './server-sent-events.js';

/** One answer of the service, by the OpenAPI operation it belongs to (`GET /v1/sessions/{id}`). */
export interface Observed {
  readonly route: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: unknown;
  readonly text: string;
  readonly events?: readonly ServerSentEvent[];
}

/** The paths of `value` (a JSON answer) that `parsed` (its parse by a schema that strips unknown keys) lost. */
export function extraFields(value: unknown, parsed: unknown, path = ''): string[] {
  if (Array.isArray(value) && Array.isArray(parsed)) return value.flatMap((item, i) => extraFields(item, parsed[i], `${path}[${i}]`));
  if (typeof value !== 'object' || value === null || typeof parsed !== 'object' || parsed === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key in parsed ? extraFields(inner, (parsed as Record<string, unknown>)[key], path ? `${path}.${key}` : key) : [path ? `${path}.${key}` : key],
  );
}

const A = 'docs-a';
const B = 'docs-b';

/**
 * Calls every route of the API on a real app, in an order that gives each answer something to show (a pending
 * turn that streams, a marker, a journal with a gap, a delta, a 304, a duplicate start, an audit job), and records
 * each answer under its operation.
 */
export class ScenarioRecorder {
  readonly observed: Observed[] = [];

  constructor(
    private readonly server: App,
    private readonly port: number,
  ) {}

  private async call(route: string, test: request.Test): Promise<request.Response> {
    const res = await test;
    this.observed.push({ route, status: res.status, contentType: String(res.headers['content-type'] ?? ''), body: res.body, text: res.text });
    return res;
  }

  private get = (path: string, key: string = KEYS.read) => request(this.server).get(path).set(bearer(key));
  private send = (method: 'post' | 'put' | 'delete', path: string, body: object, key: string = KEYS.ingest) =>
    request(this.server)[method](path).set(bearer(key)).send(body);

  /** Opens an event stream on a real socket and leaves once `enough` events came (or the stream ended). */
  private async events(route: string, path: string, key: string, enough: number): Promise<void> {
    const stream = openEventStream(`http://127.0.0.1:${this.port}${path}`, bearer(key));
    const res = await stream.ready;
    await pollUntil(`${enough} events on ${path}`, () => stream.events.length >= enough || stream.ended());
    stream.close();
    this.observed.push({ route, status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: null, text: stream.text(), events: [...stream.events] });
  }

  async run(): Promise<void> {
    const now = Date.now() / 1000;
    const { call, get, send } = { call: this.call.bind(this), get: this.get, send: this.send };
    await call('GET /health/live', request(this.server).get('/health/live'));
    await call('GET /health/ready', request(this.server).get('/health/ready'));
    await call('GET /metrics', request(this.server).get('/metrics'));
    await call('GET /v1/key', get('/v1/key', KEYS.admin));

    const start = { sessionId: A, title: 'The build', createdAt: now - 300 };
    await call('POST /v1/sessions', send('post', '/v1/sessions', start));
    await call('POST /v1/sessions', send('post', '/v1/sessions', start));
    const rows = [
      { role: 'user', content: 'Why does the build fail?', timestamp: now - 290 },
      { role: 'assistant', content: 'The lockfile is stale.', timestamp: now - 289, meta: { turnDuration: 1.2 } },
    ];
    await call('POST /v1/sessions/{id}/messages', send('post', `/v1/sessions/${A}/messages`, { rows }).set('Idempotency-Key', 'docs-rows-1'));
    await call('POST /v1/sessions/{id}/submissions', send('post', `/v1/sessions/${A}/submissions`, { runId: 'run-1', text: 'How do I fix it?', submittedAt: now - 200 }).set('If-Match', '"2"'));
    const journal = [
      { seq: 1, event: 'token', payload: { text: 'Run npm install ' }, createdAt: now - 199 },
      { seq: 3, event: 'tool', payload: { name: 'read_file', preview: 'package.json', args: { path: 'package.json' } }, createdAt: now - 198 },
    ];
    await call('POST /v1/sessions/{id}/runs/{runId}/journal', send('post', `/v1/sessions/${A}/runs/run-1/journal`, { events: journal }));
    await call('GET /v1/sessions/{id}/transcript', get(`/v1/sessions/${A}/transcript?streaming=1`));
    await this.events('GET /v1/sessions/{id}/live', `/v1/sessions/${A}/live`, KEYS.read, 1);
    await this.events('GET /v1/sessions/{id}/live', `/v1/sessions/${A}/live?patches=1`, KEYS.read, 1);

    // The worker's host restarts: the recovery supervisor interrupts the turn; the journal's gap keeps the marker pending.
    await call('PUT /v1/runs/{runId}/lease', send('put', '/v1/runs/run-1/lease', { sessionId: A, hostId: 'host-a', ttlSeconds: 30, phase: 'running' }));
    await call('PUT /v1/runs/{runId}/stream', send('put', '/v1/runs/run-1/stream', { sessionId: A }));
    await call('DELETE /v1/runs/{runId}/stream', send('delete', '/v1/runs/run-1/stream', { sessionId: A }));
    await call('DELETE /v1/runs/{runId}/lease', send('delete', '/v1/runs/run-1/lease', {}));
    await call('POST /v1/hosts/{hostId}/started', send('post', '/v1/hosts/host-a/started', { startedAt: now }));
    await call('POST /v1/recovery/sweep', send('post', '/v1/recovery/sweep', { now: now + 60 }, KEYS.admin));
    await call('GET /v1/sessions/{id}/markers', get(`/v1/sessions/${A}/markers`));
    await call('GET /v1/sessions/{id}/runs/{runId}/journal', get(`/v1/sessions/${A}/runs/run-1/journal`));

    await call('POST /v1/sessions/{id}/submissions', send('post', `/v1/sessions/${A}/submissions`, { runId: 'run-2', text: 'Thanks', submittedAt: now - 100 }));
    const settled = [
      { role: 'user', content: 'Thanks', timestamp: now - 100 },
      { role: 'assistant', content: 'You are welcome.', timestamp: now - 99 },
    ];
    await call('POST /v1/sessions/{id}/runs/{runId}/settle', send('post', `/v1/sessions/${A}/runs/run-2/settle`, { rows: settled, settledAt: now - 98 }));
    const stateRows = [{ rowId: 1, role: 'user', content: 'Why does the build fail?', timestamp: now - 290 }];
    await call('POST /v1/sessions/{id}/state-rows', send('post', `/v1/sessions/${A}/state-rows`, { rows: stateRows, observedAt: now - 97 }));

    const full = await call('GET /v1/sessions/{id}/transcript', get(`/v1/sessions/${A}/transcript`));
    for (const query of ['since=0&view=context', 'at=2']) await call('GET /v1/sessions/{id}/transcript', get(`/v1/sessions/${A}/transcript?${query}`));
    await call('GET /v1/sessions/{id}/transcript', get(`/v1/sessions/${A}/transcript`).set('If-None-Match', String(full.headers.etag)));
    await call('GET /v1/sessions/{id}', get(`/v1/sessions/${A}`));
    await call('GET /v1/sessions/{id}/events', get(`/v1/sessions/${A}/events?limit=2`));

    await call('POST /v1/sessions', send('post', '/v1/sessions', { sessionId: B }));
    await call('POST /v1/sessions/{id}/messages', send('post', `/v1/sessions/${B}/messages`, { rows }));
    // A client holds version 2; its delta to version 3 keeps the first `from` rows and appends `messages`.
    await call('GET /v1/sessions/{id}/transcript', get(`/v1/sessions/${B}/transcript`));
    await call('POST /v1/sessions/{id}/messages', send('post', `/v1/sessions/${B}/messages`, { rows: [{ role: 'user', content: 'And then?', timestamp: now - 60 }] }));
    await call('GET /v1/sessions/{id}/transcript', get(`/v1/sessions/${B}/transcript?since=2`));
    const truncate = { keepCount: 1, reason: 'edit', at: now - 50 };
    await call('POST /v1/sessions/{id}/truncate', send('post', `/v1/sessions/${B}/truncate`, truncate).set('Idempotency-Key', 'docs-truncate-1'));
    await call('POST /v1/sessions/{id}/compress', send('post', `/v1/sessions/${B}/compress`, { childSessionId: `${B}-2`, at: now - 40 }));

    await call('POST /v1/sessions/{id}/audit', send('post', `/v1/sessions/${A}/audit`, {}, KEYS.admin));
    await call('POST /v1/projections/{name}/rebuild', send('post', '/v1/projections/session_index/rebuild', {}, KEYS.admin));
    // After the rebuild the index holds every session: a page of one has a next cursor.
    await call('GET /v1/sessions', get('/v1/sessions?limit=1'));
    await call('POST /v1/audit', send('post', '/v1/audit', {}, KEYS.admin));
    const job = await call('POST /v1/audit', send('post', '/v1/audit', {}, KEYS.admin).set('Prefer', 'respond-async'));
    await pollUntil('the audit job to finish', () => get(`/v1/audit/${job.body.jobId}`, KEYS.admin), (res) => res.body.status !== 'running', { timeoutMs: 10_000 });
    await call('GET /v1/audit/{jobId}', get(`/v1/audit/${job.body.jobId}`, KEYS.admin));
    await this.events('GET /v1/audit/{jobId}/live', `/v1/audit/${job.body.jobId}/live`, KEYS.admin, 2);
    const sidecar = { session_id: 'hx-docs', title: 'Imported', created_at: 1_790_000_000, messages: rows.map((row, i) => ({ role: row.role, content: row.content, timestamp: 1_790_000_000 + i })) };
    const upload = { sessions: [{ file: 'hx-docs.json', content: sidecar }, { file: 'broken.json', content: '{' }], dryRun: true };
    await call('POST /v1/import/hermes', send('post', '/v1/import/hermes', upload, KEYS.admin));
    // The compressed child: erased (its content destroyed, README "Personal data").
    await call('POST /v1/sessions/{id}/erasure', send('post', `/v1/sessions/${B}-2/erasure`, { reason: 'docs scenario' }, KEYS.admin));

    // Problems: unknown session, no key, a malformed body, a stale If-Match.
    await call('GET /v1/sessions/{id}', get('/v1/sessions/nobody'));
    await call('POST /v1/sessions', request(this.server).post('/v1/sessions').send({}));
    await call('POST /v1/sessions/{id}/truncate', send('post', `/v1/sessions/${A}/truncate`, { keepCount: -1 }));
    await call('POST /v1/sessions/{id}/submissions', send('post', `/v1/sessions/${A}/submissions`, { runId: 'run-3', text: 'Late', submittedAt: now }).set('If-Match', '"1"'));
  }
}
