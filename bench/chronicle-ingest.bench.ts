import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../libs/platform/src/net/free-port.js';
import type { IngestOps } from '#client';
import { encodeRequest } from './http-load.js';
import type { SocketMessage } from './socket-load.js';
import { httpCall, startServiceProcess, waitForHttp, type ServiceProcess } from './service-process.js';

/**
 * Chronicle over HTTP: the real service (`node dist/apps/session-api/src/main.js`) as a child process on the
 * bench cluster, and the journal-ingestion traffic it is measured with. Each load client owns one session:
 * `POST /v1/sessions` then `POST …/submissions` (not timed), then streams
 * `POST /v1/sessions/{id}/runs/{runId}/journal` with `events` of `eventsPerRequest` token events, seq + 1 each.
 */
export const API_KEY = 'bench-admin-key';
export const AUTH = { Authorization: `Bearer ${API_KEY}` };

export interface Chronicle {
  readonly port: number;
  readonly service: ServiceProcess;
}

export async function startChronicle(databaseUrl: string, dataDir: string, env: Record<string, string> = {}): Promise<Chronicle> {
  const port = await freePort();
  mkdirSync(dataDir, { recursive: true });
  const main = fileURLToPath(new URL('../apps/session-api/src/main.js', import.meta.url));
  const service = startServiceProcess('chronicle', main, {
    DATABASE_URL: databaseUrl,
    CHRONICLE_API_KEYS: `${API_KEY}:admin`,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    CHRONICLE_DATA_DIR: join(dataDir, 'chronicle'),
    // Off (the default since the gateway is one client with one key), said explicitly.
    CHRONICLE_RATE_LIMIT_PER_MINUTE: '0',
    CHRONICLE_RECOVERY_INTERVAL_MS: '0',
    NODE_ENV: 'production',
    ...env,
  });
  await waitForHttp(service, port, '/health/ready');
  return { port, service };
}

/** One client's session and journal position. */
export interface JournalClient {
  readonly sessionId: string;
  readonly runId: string;
  seq: number;
}

/** Starts one session per client with a submitted turn (the run the journal belongs to); throws on non-2xx. */
export async function prepareJournalClients(port: number, prefix: string, count: number): Promise<JournalClient[]> {
  const clients: JournalClient[] = [];
  for (let i = 0; i < count; i += 1) clients.push(await startJournalSession(port, `${prefix}-c${i}`, i));
  return clients;
}

/** One client's session, started with a submitted turn (`index` numbers its prompt); throws on non-2xx. */
export async function startJournalSession(port: number, sessionId: string, index: number): Promise<JournalClient> {
  const runId = `${sessionId}-run`;
  const started = await httpCall(port, 'POST', '/v1/sessions', { sessionId, title: `bench ${sessionId}` }, AUTH);
  if (started.status !== 201) throw new Error(`POST /v1/sessions: ${started.status} ${started.body.slice(0, 300)}`);
  const submitted = await httpCall(
    port,
    'POST',
    `/v1/sessions/${sessionId}/submissions`,
    { runId, text: `bench prompt ${index}`, submittedAt: Date.now() / 1000 },
    AUTH,
  );
  if (submitted.status < 200 || submitted.status >= 300) {
    throw new Error(`POST submissions: ${submitted.status} ${submitted.body.slice(0, 300)}`);
  }
  return { sessionId, runId, seq: 0 };
}

/** The next journal POST of a client: `eventsPerRequest` token events continuing its seq. */
export function journalRequest(client: JournalClient, eventsPerRequest: number, port: number): Buffer {
  const createdAt = Date.now() / 1000;
  const events = [];
  for (let i = 0; i < eventsPerRequest; i += 1) {
    client.seq += 1;
    events.push({ seq: client.seq, event: 'token', payload: { text: 'tok ' }, createdAt });
  }
  return encodeRequest(
    {
      method: 'POST',
      path: `/v1/sessions/${client.sessionId}/runs/${client.runId}/journal`,
      headers: AUTH,
      body: JSON.stringify({ events }),
    },
    port,
  );
}

/** The same events as `journalRequest`, as a `/v1/ingest` message (its `id` is the load client's). */
export function journalMessage(client: JournalClient, eventsPerRequest: number, extra: Record<string, unknown> = {}): SocketMessage {
  const createdAt = Date.now() / 1000;
  const events = [];
  for (let i = 0; i < eventsPerRequest; i += 1) {
    client.seq += 1;
    events.push({ seq: client.seq, event: 'token', payload: { text: 'tok ' }, createdAt, ...extra });
  }
  return { op: 'journal', sessionId: client.sessionId, runId: client.runId, body: { events } as IngestOps['journal'] };
}

/** One series of the service's /metrics (0 when it has none yet). */
export async function metricValue(port: number, series: string): Promise<number> {
  const { body } = await httpCall(port, 'GET', '/metrics');
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** A busy-seconds counter of the service's /metrics, in ms (a background task's own time in its passes). */
export async function busyMs(port: number, series: string): Promise<number> {
  return (await metricValue(port, series)) * 1000;
}

/** `chronicle_projector_busy_seconds_total` of the session index, in ms (the projector's time in its passes). */
export const projectorBusyMs = (port: number): Promise<number> => busyMs(port, 'chronicle_projector_busy_seconds_total{projection="session_index"}');
