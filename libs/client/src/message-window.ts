import type { IngestOp, WriteResult } from './api-types.js';
import { ChronicleProblem } from './chronicle-problem.js';

/** A message to `/v1/ingest` and whoever awaits its reply. */
export interface WindowMessage {
  readonly op: IngestOp;
  readonly sessionId: string;
  readonly runId: string | undefined;
  readonly body: unknown;
  readonly resolve: (answer: WriteResult) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The connection dropped after the message was sent and before its reply: it may or may not be stored, and it
 * is not sent again because a repeat would not be a duplicate (a `messages` op has no natural key; a message with
 * `expectedVersion` would answer 409 once its first delivery was stored; a `state-rows` observation of a row that
 * a later unanswered one observes too would be stored again after it). Read the session to find out.
 */
export class DeliveryUnknown extends Error {
  override readonly name = 'DeliveryUnknown';

  constructor(readonly op: IngestOp, readonly sessionId: string) {
    super(`The connection dropped before the ${op} message to session ${sessionId} was answered; it was not sent again (no natural key).`);
  }
}

/** Whether a repeat of the message is answered as a duplicate of its first delivery, so it can be sent again blind. */
const resendable = ({ op, body }: WindowMessage) => op !== 'messages' && (body as { expectedVersion?: unknown }).expectedVersion === undefined;

/** The row ids a `state-rows` message observes (none for any other op). */
const observedRows = ({ op, body }: WindowMessage): number[] =>
  op === 'state-rows' ? ((body as { rows?: Array<{ rowId?: unknown }> }).rows ?? []).map((row) => row.rowId as number) : [];

/** A reply of `/v1/ingest`: the message's id, the HTTP route's status and its answer or problem details. */
export interface IngestReply {
  readonly id: number | string | null;
  readonly status: number;
  readonly body: unknown;
}

/**
 * The JournalWriter's messages, apart from the socket: at most `max` admitted (given an id and a frame, sent,
 * not yet answered), the rest waiting in order. Each method that frees a place answers the frames it admitted
 * into it, for the writer to send at once while `connected`; `reconnected()` answers what a new connection sends
 * again, and `disconnected()` gives up on the messages a repeat would not make safe.
 */
export class MessageWindow {
  private readonly waiting: WindowMessage[] = [];
  /** Admitted and unanswered, by id; a Map keeps the ids' (the messages') order. */
  private readonly unanswered = new Map<number, { message: WindowMessage; frame: string; sent: boolean }>();
  private readonly readyWaiters: Array<() => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private nextId = 1;
  private connected = false;

  constructor(readonly max: number) {}

  /** Messages admitted or waiting, not yet answered. */
  get pending(): number {
    return this.unanswered.size + this.waiting.length;
  }

  /** A connection opened: every unanswered frame, in the order the messages were first sent, to send on it. */
  reconnected(): string[] {
    this.connected = true;
    return [...this.unanswered.values()].map((entry) => ((entry.sent = true), entry.frame));
  }

  /**
   * The connection dropped: a message sent on it and not answered goes again on the next one when a repeat is a
   * duplicate; otherwise it fails with `DeliveryUnknown`. Answers how many will go again.
   */
  disconnected(): number {
    this.connected = false;
    // An observation of a row is a repeat only while it is that row's latest (the service's rule): of the
    // unanswered observations of one row, only the last goes again; an earlier one, resent after a later one was
    // stored, would be stored again.
    const laterRows = new Set<string>();
    const superseded = new Set<number>();
    for (const [id, { message, sent }] of [...this.unanswered].reverse()) {
      if (!sent) continue;
      const rows = observedRows(message).map((rowId) => `${message.sessionId}\u0000${rowId}`);
      if (rows.some((row) => laterRows.has(row))) superseded.add(id);
      for (const row of rows) laterRows.add(row);
    }
    for (const [id, { message, sent }] of this.unanswered) {
      if (!sent || (resendable(message) && !superseded.has(id))) continue;
      this.unanswered.delete(id);
      message.reject(new DeliveryUnknown(message.op, message.sessionId));
    }
    this.freed();
    return [...this.unanswered.values()].filter(({ sent }) => sent).length;
  }

  enqueue(message: WindowMessage): string[] {
    this.waiting.push(message);
    return this.admit();
  }

  /** Settles the message a reply answers (a reply to no unanswered message is ignored). */
  answer(reply: IngestReply): string[] {
    const entry = typeof reply.id === 'number' ? this.unanswered.get(reply.id) : undefined;
    if (!entry) return [];
    this.unanswered.delete(reply.id as number);
    if (reply.status === 200) entry.message.resolve(reply.body as WriteResult);
    else entry.message.reject(ChronicleProblem.from(reply.status, reply.body));
    return this.freed();
  }

  /**
   * The service closed with 1009: a message was over its size limit. The largest unanswered one is at least
   * as large as that one, so it is over the limit too: it alone is refused (413), the rest go again.
   */
  rejectLargest(): string[] {
    let largest: number | undefined;
    let bytes = -1;
    for (const [id, { frame }] of this.unanswered) {
      const size = Buffer.byteLength(frame);
      if (size > bytes) [largest, bytes] = [id, size];
    }
    if (largest === undefined) return [];
    const { message } = this.unanswered.get(largest)!;
    this.unanswered.delete(largest);
    const detail = `The message (${bytes} bytes) is over the service's size limit: it closed the connection with 1009.`;
    message.reject(new ChronicleProblem({ type: 'about:blank', title: 'Payload Too Large', status: 413, code: 'MESSAGE_TOO_BIG', detail }));
    return this.freed();
  }

  /** Fails every message, admitted or waiting, with `error`. */
  failAll(error: Error): void {
    const messages = [...[...this.unanswered.values()].map(({ message }) => message), ...this.waiting];
    this.unanswered.clear();
    this.waiting.length = 0;
    for (const message of messages) message.reject(error);
    this.freed();
  }

  /** Resolves once fewer than `max` messages are pending. */
  ready(): Promise<void> {
    if (this.pending < this.max) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** Resolves once no message is pending. */
  drain(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private freed(): string[] {
    const admitted = this.admit();
    if (this.pending < this.max) for (const resolve of this.readyWaiters.splice(0)) resolve();
    if (this.pending === 0) for (const resolve of this.drainWaiters.splice(0)) resolve();
    return admitted;
  }

  private admit(): string[] {
    const admitted: string[] = [];
    while (this.waiting.length > 0 && this.unanswered.size < this.max) {
      const message = this.waiting.shift()!;
      const id = this.nextId++;
      const { op, sessionId, runId, body } = message;
      const frame = JSON.stringify({ id, op, sessionId, ...(runId === undefined ? {} : { runId }), body });
      this.unanswered.set(id, { message, frame, sent: this.connected });
      admitted.push(frame);
    }
    return admitted;
  }
}
