import type { WebSocket } from 'ws';
import { type JournalEvent, MAX_JOURNAL_EVENTS } from '#domain';
import { type ProblemDetails, ProblemError, rateLimited } from '#platform';
import { type IngestMessage, type IngestReply, type MessageId, messageIdOf, parseFrameText, validateFrame } from './ingest-frames.js';

/** Close codes of `/v1/ingest` (RFC 6455 §7.4.1); 1009 (too big) and 1007 (not UTF-8) come from `ws` itself. */
export const CLOSE = {
  /** The server is shutting down: every message read was answered first. */
  goingAway: 1001,
  /** A binary frame: the protocol is JSON text frames. */
  unsupportedData: 1003,
} as const;

export interface IngestConnectionOptions {
  /**
   * Messages taken and not yet answered (their reply not yet written out to the socket); at this many the
   * connection stops reading until a reply is.
   */
  readonly maxUnanswered: number;
  /**
   * The key's rate limit, taken once per message as the HTTP routes take it once per request: seconds to wait
   * (0: go on). A message over the limit is answered 429 `RATE_LIMITED` and not run.
   */
  readonly admit?: () => { readonly wait: number; readonly limit: number };
  /** The HTTP routes' body limit: a message whose `body` is larger is answered 413, as the route answers. */
  readonly bodyLimitBytes: number;
  /** Runs a validated message through the command bus: resolves with the HTTP route's answer after its commit. */
  readonly execute: (message: IngestMessage) => Promise<unknown>;
  /**
   * Runs journal messages of one run, waiting together, as one write (`journalParts`): resolves with each
   * message's answer, as `execute` would have answered them one after another.
   */
  readonly executeJournal: (messages: readonly IngestMessage[]) => Promise<readonly unknown[]>;
  /** The problem details an error answers (as the HTTP filter would), for a message that failed. */
  readonly problemOf: (error: unknown) => ProblemDetails;
  readonly onReply?: (status: number) => void;
  /** How long a shutdown waits, once no command is running, for the client to read its replies (default 5 s). */
  readonly shutdownGraceMs?: number;
}

/** 413, as the HTTP route answers a body over the limit, for a message whose `body` (as JSON) is larger. */
function checkBodySize(parsed: unknown, limit: number): void {
  const body = typeof parsed === 'object' && parsed !== null ? (parsed as { body?: unknown }).body : undefined;
  if (body === undefined || Buffer.byteLength(JSON.stringify(body)) <= limit) return;
  throw new ProblemError(413, 'PAYLOAD_TOO_LARGE', `The message body is larger than the limit of ${limit} bytes (CHRONICLE_BODY_LIMIT_BYTES).`);
}

/** How long a shutdown waits, once no command is running, for a client to read the replies it was sent. */
const SHUTDOWN_WRITE_GRACE_MS = 5000;

/** Journal events one write takes at most (the route's own limit per request). */
const MAX_MERGED_EVENTS = MAX_JOURNAL_EVENTS;

/** The journal data of a message that may share a write with its neighbours, or null. */
export function journalOf(message: IngestMessage): { runId: string; events: readonly JournalEvent[] } | null {
  if (message.command.type !== 'RecordJournalEvents' || message.expectedVersion !== undefined) return null;
  return message.command.data;
}

/**
 * The messages at the head of a session's queue that go in one write: the first, and after it the journal
 * messages of the same run and durability (no precondition), up to the route's event limit.
 */
export function journalParts(queue: readonly IngestMessage[]): number {
  const first = journalOf(queue[0]!);
  if (!first) return 1;
  let events = first.events.length;
  let count = 1;
  while (count < queue.length) {
    const next = queue[count]!;
    const journal = journalOf(next);
    if (!journal || journal.runId !== first.runId || next.durability !== queue[0]!.durability) break;
    if (events + journal.events.length > MAX_MERGED_EVENTS) break;
    events += journal.events.length;
    count += 1;
  }
  return count;
}

/**
 * One `/v1/ingest` connection. Every text frame is one message and gets exactly one reply, sent after its
 * command committed (or failed). Messages of one session run one after another in the order they arrived,
 * and journal messages of one run that are waiting together share one write (a worker that does not wait for
 * each token's reply gets its tokens committed in batches, each still answered on its own); messages of
 * different sessions run concurrently, so the store's group commit gathers them with every other
 * connection's. A message counts as unanswered from the moment it is taken until its reply has been written out
 * to the socket (a client that stops reading its replies holds them in its own buffers, not the server's). At
 * `maxUnanswered` the socket is paused (TCP pushes back on the client: no buffer grows); frames that were
 * already read with the last chunk wait, unparsed, until a reply frees a place (at most one read's bytes); the
 * socket resumes once they are all taken and a place is free.
 */
export class IngestConnection {
  private unanswered = 0;
  /** Frames read while every place was taken, in arrival order (the rest of the chunk read before the pause). */
  private readonly held: Array<{ data: Buffer | ArrayBuffer | Buffer[]; isBinary: boolean }> = [];
  /** Each session's messages waiting for the one running before them. */
  private readonly queues = new Map<string, IngestMessage[]>();
  /** Messages taken whose reply is not sent yet (their command still running). */
  private unsent = 0;
  /** Told of each reply sent or written out (a shutdown waiting for them). */
  private readonly progress: Array<() => void> = [];
  private closing = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: IngestConnectionOptions,
  ) {
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    // A closed socket writes nothing more: what it held is dropped, and a shutdown waiting for it goes on.
    socket.on('close', () => {
      this.held.length = 0;
      this.notify();
    });
  }

  get inFlight(): number {
    return this.unanswered;
  }

  private receive(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    if (this.unanswered >= this.options.maxUnanswered || this.held.length > 0) {
      this.held.push({ data, isBinary });
      return;
    }
    this.take(data, isBinary);
  }

  /** A frame taken: parsed, validated and queued behind its session's messages (or answered with its problem). */
  private take(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    if (isBinary) {
      this.socket.close(CLOSE.unsupportedData, 'text frames of JSON only');
      return;
    }
    // A text frame arrives as a Buffer (the socket's default binary type): read in place, never copied.
    const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
    let id: MessageId | null = null;
    let message: IngestMessage;
    try {
      // Counted as the HTTP routes count a request: before its body is looked at, refused or not.
      const admitted = this.options.admit?.();
      const parsed = parseFrameText(text);
      id = messageIdOf(parsed);
      if (admitted !== undefined && admitted.wait > 0) throw rateLimited(admitted.limit, admitted.wait);
      // The frame may be a little larger than the limit (its envelope); its body may not (measured only then).
      const frameBytes = Buffer.isBuffer(data) ? data.length : Buffer.byteLength(text);
      if (frameBytes > this.options.bodyLimitBytes) checkBodySize(parsed, this.options.bodyLimitBytes);
      message = validateFrame(parsed);
    } catch (error) {
      this.counted();
      const body = this.options.problemOf(error);
      this.reply({ id, status: body.status, body });
      return;
    }
    this.counted();
    const queue = this.queues.get(message.sessionId);
    if (queue) {
      queue.push(message);
      return;
    }
    const started: IngestMessage[] = [message];
    this.queues.set(message.sessionId, started);
    void this.drain(message.sessionId, started);
  }

  /** Runs a session's queue until it is empty; the messages of a new one wait in it meanwhile. */
  private async drain(sessionId: string, queue: IngestMessage[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, journalParts(queue));
      await this.run(batch);
    }
    this.queues.delete(sessionId);
  }

  private async run(batch: readonly IngestMessage[]): Promise<void> {
    let answers: readonly unknown[];
    try {
      answers = batch.length === 1 ? [await this.options.execute(batch[0]!)] : await this.options.executeJournal(batch);
    } catch (error) {
      const body = this.options.problemOf(error);
      if (batch.length > 1 && body.status < 500) {
        // The shared write stored nothing; one message's refusal is its own: each runs alone, in order, and gets
        // the answer it would have had on its own (its neighbours are stored). A failure of the service or its
        // database (5xx) is every message's: they are answered with it at once, not tried one by one.
        for (const message of batch) await this.run([message]);
        return;
      }
      for (const message of batch) this.reply({ id: message.id, status: body.status, body });
      return;
    }
    batch.forEach((message, index) => this.reply({ id: message.id, status: 200, body: answers[index] }));
  }

  /** A message taken: one place less; at none left the socket stops reading. */
  private counted(): void {
    this.unanswered += 1;
    this.unsent += 1;
    if (this.unanswered >= this.options.maxUnanswered) this.socket.pause();
  }

  /** Sends a taken message's reply; its place frees once the reply is written out (or the socket is gone). */
  private reply(reply: IngestReply): void {
    this.unsent -= 1;
    this.options.onReply?.(reply.status);
    if (this.socket.readyState !== this.socket.OPEN) return this.answered();
    this.socket.send(JSON.stringify(reply), () => this.answered());
  }

  private answered(): void {
    this.unanswered -= 1;
    if (this.socket.readyState !== this.socket.OPEN) return this.notify();
    while (this.held.length > 0 && this.unanswered < this.options.maxUnanswered) {
      const frame = this.held.shift()!;
      this.take(frame.data, frame.isBinary);
    }
    if (this.held.length === 0 && this.unanswered < this.options.maxUnanswered && this.socket.isPaused && !this.closing) this.socket.resume();
    this.notify();
  }

  private notify(): void {
    for (const resolve of this.progress.splice(0)) resolve();
  }

  /**
   * Stops reading, answers every message already read (those held included), then closes with 1001. It waits
   * for every command however long its commit takes; once none is running, a client that does not read its
   * replies gets `shutdownGraceMs` to take them (and the held frames behind them) before it is closed.
   */
  async shutDown(): Promise<void> {
    this.closing = true;
    this.socket.pause();
    let idleSince: number | null = null;
    while (this.socket.readyState === this.socket.OPEN && (this.unanswered > 0 || this.held.length > 0)) {
      if (this.unsent > 0) idleSince = null;
      else if ((idleSince ??= Date.now()) + (this.options.shutdownGraceMs ?? SHUTDOWN_WRITE_GRACE_MS) <= Date.now()) break;
      await new Promise<void>((resolve) => {
        this.progress.push(resolve);
        setTimeout(resolve, 50).unref();
      });
    }
    if (this.socket.readyState === this.socket.OPEN) this.socket.close(CLOSE.goingAway, 'server shutting down');
  }
}
