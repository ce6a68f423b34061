import { connect, type Socket } from 'node:net';
import { LatencyHistogram } from './latency-histogram.js';

/**
 * Plain-socket HTTP/1.1 load client: one keep-alive connection per client on node:net, one request in flight
 * per connection (written, its full response parsed — status line, headers, Content-Length or chunked body —
 * then the next). A run is a warm-up (answers checked, not timed) and a measured window; throughput counts the
 * 2xx answers that complete inside the window, latency is recorded for them. Every answer, warm-up included,
 * is checked: non-2xx answers are counted by status (first body kept), socket errors counted. When the window
 * ends (or `maxRequests` were sent) no new request is written; in-flight ones drain, up to `drainMs`, then
 * every socket is closed. Traffic goes to 127.0.0.1 only.
 */
export interface LoadRequest {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface LoadOptions {
  readonly port: number;
  /** The port each client connects to, when clients are spread over several servers (else `port`). */
  readonly portOf?: (client: number) => number;
  readonly connections: number;
  readonly durationMs: number;
  readonly warmupMs?: number;
  /** Upper bound on requests written, warm-up included. */
  readonly maxRequests?: number;
  /** Builds the next request of a client (0 … connections-1), e.g. with its next seq. */
  readonly request: (client: number) => Buffer;
  /** Answers slower than this count as errors and end their connection (it reconnects). */
  readonly requestTimeoutMs?: number;
  readonly drainMs?: number;
  /** The statuses that count as answered as asked (2xx by default; a revalidation load expects 304). */
  readonly expectStatus?: (status: number) => boolean;
  /** Called when the measured window opens (e.g. to take a CPU sample). */
  readonly onWindowStart?: () => void;
}

export interface LoadResult {
  readonly connections: number;
  /** Measured window actually covered, ms. */
  readonly windowMs: number;
  /** 2xx answers completed inside the window. */
  readonly ok: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Every answer checked (warm-up, window, drain). */
  readonly answers: number;
  readonly non2xx: Readonly<Record<string, number>>;
  readonly non2xxTotal: number;
  readonly firstNon2xx?: string;
  readonly errors: number;
  readonly firstError?: string;
}

/** Serialises one request (Host, Content-Length, keep-alive). */
export function encodeRequest(request: LoadRequest, port: number): Buffer {
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  let head = `${request.method} ${request.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n`;
  for (const [name, value] of Object.entries(request.headers ?? {})) head += `${name}: ${value}\r\n`;
  if (body) head += `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
  head += '\r\n';
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}

interface ParsedResponse {
  readonly status: number;
  readonly body: Buffer;
  readonly close: boolean;
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

/** Incremental HTTP/1.1 response parser (Content-Length, chunked, or no body for 1xx/204/304). */
export class ResponseParser {
  private buffer: Buffer = Buffer.alloc(0);
  private status = 0;
  private close = false;
  private mode: 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'trailers' = 'head';
  private remaining = 0;
  private chunks: Buffer[] = [];

  push(data: Buffer, out: ParsedResponse[]): void {
    this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data]);
    for (;;) {
      if (this.mode === 'head') {
        const end = this.buffer.indexOf(HEAD_END);
        if (end < 0) return;
        this.readHead(this.buffer.toString('latin1', 0, end));
        this.buffer = this.buffer.subarray(end + 4);
        if (this.mode === 'head') this.finish(out);
      } else if (this.mode === 'length') {
        if (this.buffer.length < this.remaining) return;
        this.chunks.push(this.buffer.subarray(0, this.remaining));
        this.buffer = this.buffer.subarray(this.remaining);
        this.finish(out);
      } else if (this.mode === 'chunk-size') {
        const end = this.buffer.indexOf(CRLF);
        if (end < 0) return;
        const size = Number.parseInt(this.buffer.toString('latin1', 0, end).split(';')[0]!.trim(), 16);
        if (!Number.isFinite(size) || size < 0) throw new Error('bad chunk size');
        this.buffer = this.buffer.subarray(end + 2);
        if (size === 0) this.mode = 'trailers';
        else {
          this.remaining = size;
          this.mode = 'chunk-data';
        }
      } else if (this.mode === 'chunk-data') {
        if (this.buffer.length < this.remaining + 2) return;
        this.chunks.push(this.buffer.subarray(0, this.remaining));
        this.buffer = this.buffer.subarray(this.remaining + 2);
        this.mode = 'chunk-size';
      } else {
        const end = this.buffer.indexOf(CRLF);
        if (end < 0) return;
        this.buffer = this.buffer.subarray(end + 2);
        if (end === 0) this.finish(out); // the empty line after the (usually absent) trailers
      }
    }
  }

  private readHead(head: string): void {
    const lines = head.split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!);
    if (!match) throw new Error(`bad status line: ${lines[0]!.slice(0, 80)}`);
    this.status = Number(match[1]);
    let length: number | undefined;
    let chunked = false;
    this.close = lines[0]!.startsWith('HTTP/1.0');
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim().toLowerCase();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = value.split(',').map((v) => v.trim()).includes('chunked');
      else if (name === 'connection') this.close = value === 'close';
    }
    const bodyless = this.status < 200 || this.status === 204 || this.status === 304;
    if (bodyless || (!chunked && length === 0)) this.mode = 'head';
    else if (chunked) this.mode = 'chunk-size';
    else if (length !== undefined && Number.isFinite(length)) {
      this.remaining = length;
      this.mode = 'length';
    } else throw new Error('response without length (read-until-close is not supported)');
  }

  private finish(out: ParsedResponse[]): void {
    out.push({ status: this.status, body: Buffer.concat(this.chunks), close: this.close });
    this.chunks = [];
    this.mode = 'head';
  }
}

export function runHttpLoad(options: LoadOptions): Promise<LoadResult> {
  const warmupMs = options.warmupMs ?? 0;
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const drainMs = options.drainMs ?? 5_000;
  const histogram = new LatencyHistogram();
  const non2xx: Record<string, number> = {};
  let firstNon2xx: string | undefined;
  let firstError: string | undefined;
  let answers = 0;
  let ok = 0;
  let errors = 0;
  let written = 0;
  let lastInWindow = 0;
  const start = performance.now();
  const windowStart = start + warmupMs;
  const windowEnd = windowStart + options.durationMs;
  let stopping = false;

  return new Promise((resolve) => {
    const clients: Client[] = [];
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      stopping = true;
      clearTimeout(hardStop);
      clearTimeout(windowTimer);
      clearTimeout(startTimer);
      for (const client of clients) client.socket?.destroy();
      // Cut short by maxRequests: the window ends at the last answer counted in it.
      const cutShort = written >= (options.maxRequests ?? Infinity) && lastInWindow > 0 && lastInWindow < windowEnd;
      const windowMs = cutShort ? lastInWindow - windowStart : options.durationMs;
      resolve({
        connections: options.connections,
        windowMs,
        ok,
        requestsPerSecond: windowMs > 0 ? ok / (windowMs / 1000) : 0,
        p50Ms: histogram.percentileMs(50),
        p90Ms: histogram.percentileMs(90),
        p99Ms: histogram.percentileMs(99),
        maxMs: histogram.maxMs,
        answers,
        non2xx,
        non2xxTotal: Object.values(non2xx).reduce((a, b) => a + b, 0),
        ...(firstNon2xx === undefined ? {} : { firstNon2xx }),
        errors,
        ...(firstError === undefined ? {} : { firstError }),
      });
    };
    const maybeDone = (): void => {
      if (stopping && clients.every((c) => !c.inFlight)) finish();
    };
    const stop = (): void => {
      stopping = true;
      maybeDone();
    };
    const windowTimer = setTimeout(stop, windowEnd - performance.now());
    const startTimer = setTimeout(() => options.onWindowStart?.(), windowStart - performance.now());
    const hardStop = setTimeout(finish, windowEnd - performance.now() + drainMs);

    class Client {
      socket: Socket | undefined;
      inFlight = false;
      private sentAt = 0;
      private parser = new ResponseParser();
      private timer: NodeJS.Timeout | undefined;
      private reconnects = 0;

      constructor(private readonly index: number) {}

      open(): void {
        this.parser = new ResponseParser();
        const socket = connect({ host: '127.0.0.1', port: options.portOf?.(this.index) ?? options.port, noDelay: true });
        this.socket = socket;
        socket.on('connect', () => this.send());
        socket.on('data', (data: Buffer) => this.onData(data));
        socket.on('error', (error) => this.fail(`socket: ${error.message}`));
        socket.on('close', () => {
          if (this.socket !== socket) return;
          if (this.inFlight) this.fail('connection closed before the answer');
          else if (!stopping) this.open(); // the server closed an idle keep-alive connection
        });
      }

      send(): void {
        if (stopping || finished) return maybeDone();
        if (written >= (options.maxRequests ?? Infinity)) return stop();
        written += 1;
        this.inFlight = true;
        this.sentAt = performance.now();
        this.timer = setTimeout(() => this.fail(`no answer within ${timeoutMs} ms`), timeoutMs);
        this.socket!.write(options.request(this.index));
      }

      private onData(data: Buffer): void {
        const parsed: ParsedResponse[] = [];
        try {
          this.parser.push(data, parsed);
        } catch (error) {
          return this.fail(`parse: ${(error as Error).message}`);
        }
        for (const response of parsed) this.onResponse(response);
      }

      private onResponse(response: ParsedResponse): void {
        if (!this.inFlight) return this.fail('answer without a request');
        const now = performance.now();
        clearTimeout(this.timer);
        this.inFlight = false;
        answers += 1;
        const good = options.expectStatus ? options.expectStatus(response.status) : response.status >= 200 && response.status < 300;
        if (!good) {
          non2xx[response.status] = (non2xx[response.status] ?? 0) + 1;
          firstNon2xx ??= `${response.status} ${response.body.toString('utf8', 0, Math.min(response.body.length, 300))}`;
        } else if (this.sentAt >= windowStart && now <= windowEnd) {
          ok += 1;
          lastInWindow = now;
          histogram.recordMicros((now - this.sentAt) * 1000);
        }
        if (response.close) {
          this.socket?.destroy();
          this.socket = undefined;
          if (!stopping) this.open();
          else maybeDone();
          return;
        }
        this.send();
      }

      private fail(message: string): void {
        clearTimeout(this.timer);
        this.inFlight = false;
        errors += 1;
        firstError ??= message;
        const socket = this.socket;
        this.socket = undefined;
        socket?.destroy();
        if (stopping || finished || this.reconnects >= 20) return maybeDone();
        this.reconnects += 1;
        setTimeout(() => this.open(), 20);
      }
    }

    for (let i = 0; i < options.connections; i += 1) {
      const client = new Client(i);
      clients.push(client);
      client.open();
    }
  });
}
