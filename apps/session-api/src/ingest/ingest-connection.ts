import type { WebSocket } from 'ws';
import type { ProblemDetails } from '#platform';
import { type IngestMessage, type IngestReply, type MessageId, messageIdOf, parseFrameText, validateFrame } from './ingest-frames.js';

/** Close codes of `/v1/ingest` (RFC 6455 §7.4.1); 1009 (too big) and 1007 (not UTF-8) come from `ws` itself. */
export const CLOSE = {
  /** The server is shutting down: every message read was answered first. */
  goingAway: 1001,
  /** A binary frame: the protocol is JSON text frames. */
  unsupportedData: 1003,
} as const;

export interface IngestConnectionOptions {
  /** Messages read and not yet answered; at this many the connection stops reading until one is answered. */
  readonly maxUnanswered: number;
  /** Runs a validated message through the command bus: resolves with the HTTP route's answer after its commit. */
  readonly execute: (message: IngestMessage) => Promise<unknown>;
  /** The problem details an error answers (as the HTTP filter would), for a message that failed. */
  readonly problemOf: (error: unknown) => ProblemDetails;
  readonly onReply?: (status: number) => void;
}

/**
 * One `/v1/ingest` connection. Every text frame is one message and gets exactly one reply, sent after its
 * command committed (or failed). Messages of one session run one after another in the order they arrived;
 * messages of different sessions run concurrently, so the store's group commit gathers them with every other
 * connection's. At `maxUnanswered` messages in flight the socket is paused (TCP pushes back on the client: no
 * buffer grows); it resumes as replies go out.
 */
export class IngestConnection {
  private unanswered = 0;
  /** Each session's last queued message: the next one of that session starts after it. */
  private readonly tails = new Map<string, Promise<void>>();
  private readonly drained: Array<() => void> = [];
  private closing = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: IngestConnectionOptions,
  ) {
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
  }

  get inFlight(): number {
    return this.unanswered;
  }

  private receive(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    if (this.closing) return;
    if (isBinary) {
      this.socket.close(CLOSE.unsupportedData, 'text frames of JSON only');
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    let id: MessageId | null = null;
    let message: IngestMessage;
    try {
      const parsed = parseFrameText(text);
      id = messageIdOf(parsed);
      message = validateFrame(parsed);
    } catch (error) {
      this.reply({ id, status: 400, body: this.options.problemOf(error) }, false);
      return;
    }
    this.unanswered += 1;
    if (this.unanswered >= this.options.maxUnanswered) this.socket.pause();
    const previous = this.tails.get(message.sessionId) ?? Promise.resolve();
    const done = previous.then(() => this.run(message));
    this.tails.set(message.sessionId, done);
    void done.then(() => {
      if (this.tails.get(message.sessionId) === done) this.tails.delete(message.sessionId);
    });
  }

  private async run(message: IngestMessage): Promise<void> {
    let reply: IngestReply;
    try {
      reply = { id: message.id, status: 200, body: await this.options.execute(message) };
    } catch (error) {
      const body = this.options.problemOf(error);
      reply = { id: message.id, status: body.status, body };
    }
    this.reply(reply, true);
  }

  private reply(reply: IngestReply, counted: boolean): void {
    this.options.onReply?.(reply.status);
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(reply));
    if (!counted) return;
    this.unanswered -= 1;
    if (this.unanswered < this.options.maxUnanswered && this.socket.isPaused && !this.closing) this.socket.resume();
    if (this.unanswered === 0) for (const resolve of this.drained.splice(0)) resolve();
  }

  /** Stops reading, answers every message already read, then closes with 1001. */
  async shutDown(): Promise<void> {
    this.closing = true;
    this.socket.pause();
    if (this.unanswered > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
    if (this.socket.readyState === this.socket.OPEN) this.socket.close(CLOSE.goingAway, 'server shutting down');
  }
}
