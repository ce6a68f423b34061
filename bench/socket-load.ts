import WebSocket from 'ws';
import type { LoadResult } from './http-load.js';
import { AUTH } from './chronicle-ingest.bench.js';
import { LatencyHistogram } from './latency-histogram.js';

/**
 * The WebSocket counterpart of `runHttpLoad`: one `/v1/ingest` connection per client, `inFlight` messages
 * unanswered per connection (1 compares with the HTTP client's one request per connection; more is a worker
 * that does not wait for each token's reply), each reply matched to its message by id. Same warm-up, window,
 * checks and result as the HTTP load: throughput counts the 200 replies that arrive inside the window, latency
 * is recorded for them, every other status is counted with the first body kept.
 */
export interface SocketLoadOptions {
  readonly port: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly connections: number;
  readonly durationMs: number;
  readonly warmupMs?: number;
  /** Messages each connection keeps unanswered (default 1). */
  readonly inFlight?: number;
  /** The next message of a client (0 … connections-1) as a JSON object without its `id`. */
  readonly message: (client: number) => Record<string, unknown>;
  readonly drainMs?: number;
  readonly onWindowStart?: () => void;
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

  const sockets = await Promise.all(
    Array.from(
      { length: options.connections },
      () =>
        new Promise<WebSocket>((resolve, reject) => {
          const socket = new WebSocket(`ws://127.0.0.1:${options.port}/v1/ingest`, { headers: { ...options.headers }, perMessageDeflate: false });
          socket.once('open', () => resolve(socket));
          socket.once('error', reject);
          socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode}`)));
        }),
    ),
  );
  const start = performance.now();
  const windowStart = start + warmupMs;
  const windowEnd = windowStart + options.durationMs;
  const windowTimer = setTimeout(() => options.onWindowStart?.(), warmupMs);
  let unansweredTotal = 0;
  let drained: () => void = () => undefined;

  sockets.forEach((socket, client) => {
    const sentAt = new Map<number, number>();
    let next = 0;
    const send = (): void => {
      if (stopping || socket.readyState !== WebSocket.OPEN) return;
      const id = next++;
      sentAt.set(id, performance.now());
      unansweredTotal += 1;
      socket.send(JSON.stringify({ id, ...options.message(client) }));
    };
    socket.on('message', (data) => {
      const now = performance.now();
      const reply = JSON.parse(String(data)) as { id: number; status: number; body: unknown };
      const sent = sentAt.get(reply.id);
      sentAt.delete(reply.id);
      unansweredTotal -= 1;
      answers += 1;
      if (reply.status === 200) {
        if (sent !== undefined && sent >= windowStart && now <= windowEnd) {
          ok += 1;
          histogram.recordMicros((now - sent) * 1000);
        }
      } else {
        non2xx[reply.status] = (non2xx[reply.status] ?? 0) + 1;
        firstNon2xx ??= `${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`;
      }
      if (now < windowEnd) send();
      else if (unansweredTotal === 0) drained();
    });
    socket.on('error', (error) => {
      errors += 1;
      firstError ??= error.message;
    });
    socket.on('close', (code) => {
      if (!stopping) {
        errors += 1;
        firstError ??= `closed with ${code}`;
      }
    });
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
  for (const socket of sockets) socket.terminate();
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
