import WebSocket from 'ws';
import type { IngestOp, IngestOps, JournalEventBody, MessageRow, SettleBody, StateRowsBody, SubmissionBody, WriteResult } from './api-types.js';
import { ChronicleProblem } from './chronicle-problem.js';
import { type IngestReply, MessageWindow } from './message-window.js';
import { isRetryableStatus, type ReconnectOptions, reconnectDelay } from './reconnect-backoff.js';

export interface JournalWriterOptions {
  /** The service's origin, e.g. `http://localhost:8080` (the socket is `ws://…/v1/ingest`). */
  readonly baseUrl: string;
  /** An API key with scope `ingest`. */
  readonly apiKey: string;
  /** Messages sent and not yet answered, at most; 64 by default (the service reads up to 128 per connection). */
  readonly maxUnanswered?: number;
  readonly reconnect?: ReconnectOptions;
  /** A ping this often; a connection that has not answered the previous one (with messages unanswered, the previous four) is dropped and opened again. 30 s by default. */
  readonly heartbeatMs?: number;
}

/** The close code of a message over the service's size limit. */
const MESSAGE_TOO_BIG = 1009;

/**
 * A worker's writer over the WebSocket ingest endpoint (`GET /v1/ingest`): each message is one ingestion
 * command of the HTTP contract, answered once after its commit. At most `maxUnanswered` messages are on the wire
 * unanswered; more wait in order (`ready()` is the caller's backpressure). A connection that drops, or that the
 * service closes (1001 on shutdown), is opened again with backoff and every message not yet answered is sent
 * again in its original order: safe, as each command has a natural key (`(runId, seq)` for the journal, `runId`
 * for a submission or a settle, `rowId` for state rows), so a repeat of one already stored is answered
 * `duplicate: true` and stores nothing. The exceptions are not sent again but fail with `DeliveryUnknown`: a
 * `messages` op (no natural key) and a message with `expectedVersion`. A key the upgrade refuses (401, 403) fails
 * every message with that problem.
 */
/**
 * Unanswered pings after which a connection with messages pending is given up (one without: after one). A
 * service at its unanswered limit reads nothing until its commits answer, so a stalled database is not a dead
 * connection: reconnecting would only send the same messages again.
 */
const STALLED_PINGS = 4;

export class JournalWriter {
  private readonly window: MessageWindow;
  private socket: WebSocket | null = null;
  private isOpen = false;
  private attempt = 0;
  private opened = 0;
  private resentCount = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private closing = false;
  private failure: Error | null = null;

  constructor(private readonly options: JournalWriterOptions) {
    this.window = new MessageWindow(options.maxUnanswered ?? 64);
    this.connect();
  }

  /** Messages sent or waiting to be, not yet answered. */
  get pending(): number {
    return this.window.pending;
  }

  /** Connections opened so far (1 + the reconnects). */
  get connections(): number {
    return this.opened;
  }

  /** Messages to be sent again on a new connection because the one before dropped without answering them. */
  get resent(): number {
    return this.resentCount;
  }

  /**
   * Sends one message (`op` names the HTTP route, `body` is exactly its body, `runId` its `{runId}`) and answers
   * its reply: the route's answer, or a `ChronicleProblem` when it refused the message.
   */
  send<Op extends IngestOp>(op: Op, sessionId: string, body: IngestOps[Op], runId?: string): Promise<WriteResult> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(new Error('The JournalWriter is closed.'));
    return new Promise((resolve, reject) => this.transmit(this.window.enqueue({ op, sessionId, runId, body, resolve, reject })));
  }

  /** Resolves once fewer than `maxUnanswered` messages are pending: await it before each send to keep the window. */
  ready(): Promise<void> {
    return this.window.ready();
  }

  /** Resolves once every message sent so far is answered. */
  drain(): Promise<void> {
    return this.window.drain();
  }

  /** Waits for every reply outstanding (reconnecting as needed), then closes the connection. */
  async close(): Promise<void> {
    this.closing = true;
    await this.window.drain();
    this.shutDown();
  }

  /** Stops at once: every pending message fails (it may have been committed all the same) and the connection closes. */
  terminate(): void {
    this.closing = true;
    this.window.failAll(new Error('The JournalWriter was terminated.'));
    this.shutDown();
  }

  /** Journal events of a run (`POST …/runs/{runId}/journal`). */
  journal(sessionId: string, runId: string, events: readonly JournalEventBody[]): Promise<WriteResult> {
    return this.send('journal', sessionId, { events: [...events] }, runId);
  }

  /**
   * A streamed token (`event: "token"`, `payload.text`). `relaxed`: acknowledged before its commit is flushed to
   * disk (the answer then says `durable: false`); a crash of the database host may lose it, never a durable event.
   */
  token(sessionId: string, runId: string, seq: number, text: string, options: { relaxed?: boolean; createdAt?: number } = {}): Promise<WriteResult> {
    const createdAt = options.createdAt ?? Date.now() / 1000;
    return this.journal(sessionId, runId, [{ seq, event: 'token', payload: { text }, createdAt, ...(options.relaxed ? { durability: 'relaxed' as const } : {}) }]);
  }

  /** A user turn starts (`POST …/submissions`). */
  submit(sessionId: string, body: SubmissionBody): Promise<WriteResult> {
    return this.send('submission', sessionId, body);
  }

  /** The worker finished the turn (`POST …/runs/{runId}/settle`). */
  settle(sessionId: string, runId: string, body: SettleBody): Promise<WriteResult> {
    return this.send('settle', sessionId, body, runId);
  }

  /** Rows the UI owns and committed (`POST …/messages`). */
  recordMessages(sessionId: string, rows: readonly MessageRow[]): Promise<WriteResult> {
    return this.send('messages', sessionId, { rows: [...rows] });
  }

  /** Rows read from the agent's own store (`POST …/state-rows`). */
  observeStateRows(sessionId: string, body: StateRowsBody): Promise<WriteResult> {
    return this.send('state-rows', sessionId, body);
  }

  private transmit(frames: readonly string[]): void {
    if (this.isOpen) for (const frame of frames) this.socket!.send(frame);
  }

  private connect(): void {
    const { baseUrl, apiKey } = this.options;
    const url = `${baseUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}/v1/ingest`;
    const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${apiKey}` } });
    this.socket = socket;
    // Pings sent since the last pong or reply. With messages unanswered the service may have stopped reading
    // (at its limit, waiting on its commits): the pong waits behind them, so a few more go unanswered first.
    let missed = 0;
    socket.on('open', () => {
      this.isOpen = true;
      this.opened += 1;
      this.attempt = 0;
      this.transmit(this.window.reconnected());
      this.heartbeat = setInterval(() => {
        if (missed >= (this.window.pending > 0 ? STALLED_PINGS : 1)) return socket.terminate();
        missed += 1;
        socket.ping();
      }, this.options.heartbeatMs ?? 30_000);
      this.heartbeat.unref();
    });
    socket.on('pong', () => (missed = 0));
    socket.on('message', (data) => {
      missed = 0;
      this.receive(String(data));
    });
    socket.on('unexpected-response', (_request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        if (!isRetryableStatus(status)) this.fail(ChronicleProblem.from(status, parsed(text)));
        socket.terminate();
      });
    });
    // An error is followed by `close`, where the connection is opened again.
    socket.on('error', () => undefined);
    socket.on('close', (code) => this.dropped(socket, code));
  }

  private receive(text: string): void {
    const reply = parsed(text) as IngestReply | null;
    if (reply !== null && typeof reply === 'object') this.transmit(this.window.answer(reply));
  }

  private dropped(socket: WebSocket, code: number): void {
    if (this.socket !== socket) return;
    const wasOpen = this.isOpen;
    this.isOpen = false;
    this.socket = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (wasOpen) {
      if (code === MESSAGE_TOO_BIG) this.window.rejectLargest();
      this.resentCount += this.window.disconnected();
    }
    if (this.failure || (this.closing && this.window.pending === 0)) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, reconnectDelay(this.attempt++, this.options.reconnect));
  }

  /** A refusal that resending cannot fix (a key that is unknown or lacks the scope): every message fails with it. */
  private fail(problem: ChronicleProblem): void {
    this.failure = problem;
    this.window.failAll(problem);
  }

  private shutDown(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.socket?.close(1000);
    this.socket = null;
    this.isOpen = false;
  }
}

/** JSON, or the text itself when it is not. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
