import WebSocket from 'ws';
import { ChronicleProblem, type IngestOp, type IngestOps, JournalWriter } from '#client';
import type { LoadResult } from './http-load.js';
import { AUTH } from './chronicle-ingest.bench.js';
import { LatencyHistogram } from './latency-histogram.js';

/**
 * The WebSocket counterpart of `runHttpLoad`, driven through the client library a worker uses
 * (`JournalWriter` of `chronicle/client`): one writer, so one `/v1/ingest` connection, per client, `inFlight`
 * messages unanswered per writer (1 compares with the HTTP client's one request per connection; more is a worker
 * that does not wait for each token's reply). Same warm-up, window, checks and result as the HTTP load:
 * throughput counts the answers that arrive inside the window, latency is recorded for them (from `send` to its
 * answer), every refusal is counted by its status with the first kept; a writer that had to reconnect counts
 * as an error (its resent messages would be answered `duplicate`).
 */
export interface SocketLoadOptions {
  readonly port: number;
  /** An API key with scope `ingest`. */
  readonly apiKey: string;
  readonly connections: number;
  readonly durationMs: number;
  readonly warmupMs?: number;
  /** Messages each connection keeps unanswered (default 1). */
  readonly inFlight?: number;
  /** The next message of a client (0 … connections-1). */
  readonly message: (client: number) => SocketMessage;
  readonly drainMs?: number;
  readonly onWindowStart?: () => void;
}

/** One command of the ingest protocol: the HTTP route (`op`), its session and run, and exactly its body. */
export interface SocketMessage {
  readonly op: IngestOp;
  readonly sessionId: string;
  readonly runId?: string;
  readonly body: IngestOps[IngestOp];
}

export async function runSocketLoad(options: SocketLoadOptions): Promise<LoadResult> {
  const warmupMs = options.warmupMs ?? 0;
  const inFlight = options.inFlight ?? 1;
  const histogram = new LatencyHistogram();
  const non2xx: Record<string, number> = {};
  let firstNon2xx: string | undefined;
  let firstError: string | undefined;
  let answers = 0;
  let ok = 0;
  let errors = 0;
  let stopping = false;

  const baseUrl = `http://127.0.0.1:${options.port}`;
  const writers = Array.from({ length: options.connections }, () => new JournalWriter({ baseUrl, apiKey: options.apiKey, maxUnanswered: inFlight }));
  // Every connection open before the clock starts, as the HTTP load's sockets are.
  try {
    await Promise.all(writers.map((writer) => openOf(writer)));
  } catch (error) {
    for (const writer of writers) writer.terminate();
    throw error;
  }
  const start = performance.now();
  const windowStart = start + warmupMs;
  const windowEnd = windowStart + options.durationMs;
  const windowTimer = setTimeout(() => options.onWindowStart?.(), warmupMs);
  let unansweredTotal = 0;
  let drained: () => void = () => undefined;

  writers.forEach((writer, client) => {
    const send = (): void => {
      if (stopping) return;
      const { op, sessionId, runId, body } = options.message(client);
      const sent = performance.now();
      unansweredTotal += 1;
      writer.send(op, sessionId, body, runId).then(
        () => {
          const now = performance.now();
          answers += 1;
          if (sent >= windowStart && now <= windowEnd) {
            ok += 1;
            histogram.recordMicros((now - sent) * 1000);
          }
          next(now);
        },
        (error: unknown) => {
          answers += 1;
          if (error instanceof ChronicleProblem) {
            non2xx[error.status] = (non2xx[error.status] ?? 0) + 1;
            firstNon2xx ??= `${error.status} ${error.message.slice(0, 300)}`;
          } else {
            errors += 1;
            firstError ??= error instanceof Error ? error.message : String(error);
          }
          next(performance.now());
        },
      );
    };
    const next = (now: number): void => {
      unansweredTotal -= 1;
      if (now < windowEnd) send();
      else if (unansweredTotal === 0) drained();
    };
    for (let i = 0; i < inFlight; i += 1) send();
  });

  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, warmupMs + options.durationMs + (options.drainMs ?? 5_000));
    drained = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  stopping = true;
  clearTimeout(windowTimer);
  for (const writer of writers) {
    if (writer.connections > 1) {
      errors += writer.connections - 1;
      firstError ??= `a connection dropped and was opened again (${writer.resent} messages resent)`;
    }
    writer.terminate();
  }
  const windowMs = options.durationMs;
  return {
    connections: options.connections,
    windowMs,
    ok,
    requestsPerSecond: ok / (windowMs / 1000),
    p50Ms: histogram.percentileMs(50),
    p90Ms: histogram.percentileMs(90),
    p99Ms: histogram.percentileMs(99),
    maxMs: histogram.maxMs,
    answers,
    non2xx,
    non2xxTotal: Object.values(non2xx).reduce((a, b) => a + b, 0),
    ...(firstNon2xx ? { firstNon2xx } : {}),
    errors,
    ...(firstError ? { firstError } : {}),
  };
}

/** Resolves once the writer's connection is open; rejects after 10 s (a refused upgrade never opens). */
async function openOf(writer: JournalWriter): Promise<void> {
  for (let waited = 0; writer.connections === 0; waited += 10) {
    if (waited > 10_000) throw new Error('a /v1/ingest connection did not open within 10 s (a refused key, or the service is not up)');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Opens `count` `/v1/ingest` sockets that send nothing (the service's cost of connections held open). */
export async function openIdleSockets(port: number, count: number, headers: Readonly<Record<string, string>> = AUTH): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let opened = 0; opened < count; opened += 50) {
    const batch = await Promise.all(
      Array.from(
        { length: Math.min(50, count - opened) },
        () =>
          new Promise<WebSocket>((resolve, reject) => {
            const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/ingest`, { headers: { ...headers }, perMessageDeflate: false });
            socket.once('open', () => resolve(socket));
            socket.once('error', reject);
          }),
      ),
    );
    sockets.push(...batch);
  }
  return sockets;
}
