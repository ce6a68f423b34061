import WebSocket from 'ws';

export interface SocketReply {
  readonly id: string | number | null;
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** How an upgrade was refused: the HTTP status and the parsed body. */
export interface RefusedUpgrade {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Record<string, unknown>;
}

/**
 * A test's `/v1/ingest` connection: sends raw frames or messages, collects every reply in arrival order and the
 * close code. `open` resolves once upgraded; `refused` when the server answered the upgrade with an HTTP status.
 */
export class TestSocket {
  readonly replies: SocketReply[] = [];
  closeCode: number | undefined;
  closeReason = '';
  readonly closed: Promise<number>;
  private readonly socket: WebSocket;
  readonly opened: Promise<RefusedUpgrade | null>;

  constructor(baseUrl: string, key: string | null) {
    this.socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v1/ingest`, {
      headers: key === null ? {} : { Authorization: `Bearer ${key}` },
    });
    this.socket.on('message', (data) => this.replies.push(JSON.parse(String(data)) as SocketReply));
    this.closed = new Promise((resolve) =>
      this.socket.on('close', (code, reason) => {
        this.closeCode = code;
        this.closeReason = String(reason);
        resolve(code);
      }),
    );
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve(null));
      this.socket.once('unexpected-response', (_request, response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'], body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }),
        );
      });
      this.socket.once('error', reject);
    });
  }

  /** Resolves once upgraded; throws if the server refused. */
  async open(): Promise<this> {
    const refused = await this.opened;
    if (refused) throw new Error(`upgrade refused: ${refused.status} ${JSON.stringify(refused.body)}`);
    return this;
  }

  sendRaw(data: string | Buffer, binary = false): void {
    this.socket.send(data, { binary });
  }

  send(message: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Waits until `count` replies arrived (or the socket closed first: then it throws). */
  async waitForReplies(count: number, timeoutMs = 10_000): Promise<SocketReply[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.replies.length < count) {
      if (this.closeCode !== undefined) throw new Error(`closed (${this.closeCode} ${this.closeReason}) after ${this.replies.length} of ${count} replies`);
      if (Date.now() > deadline) throw new Error(`${this.replies.length} of ${count} replies after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return this.replies.slice(0, count);
  }

  close(): void {
    this.socket.close();
  }

  terminate(): void {
    this.socket.terminate();
  }
}

/** A journal message of one token. */
export const tokenMessage = (id: string | number, sessionId: string, runId: string, seq: number, extra: Record<string, unknown> = {}) => ({
  id,
  op: 'journal',
  sessionId,
  runId,
  body: { events: [{ seq, event: 'token', payload: { text: ` t${seq}` }, createdAt: 1_800_000_000 + seq, ...extra }] },
});
