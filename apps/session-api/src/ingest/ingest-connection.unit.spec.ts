import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { problem, type ProblemDetails, ProblemError } from '#platform';
import { CLOSE, IngestConnection } from './ingest-connection.js';
import type { IngestMessage } from './ingest-frames.js';

/** The part of a `ws` socket the connection uses: frames in, replies out, pause and resume. */
class SocketDouble extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  isPaused = false;
  readonly sent: Array<{ id: unknown; status: number; body: unknown }> = [];
  closedWith: number | undefined;
  pause() {
    this.isPaused = true;
  }
  resume() {
    this.isPaused = false;
  }
  /** Replies written out at once, or (with `holdWrites`) only when `writeOut` is called: a client not reading. */
  holdWrites = false;
  private readonly unwritten: Array<() => void> = [];
  send(text: string, written?: () => void) {
    this.sent.push(JSON.parse(text));
    if (!written) return;
    if (this.holdWrites) this.unwritten.push(written);
    else queueMicrotask(written);
  }
  writeOut() {
    for (const written of this.unwritten.splice(0)) written();
  }
  close(code: number) {
    this.closedWith = code;
    this.readyState = 3;
  }
  frame(message: object) {
    this.emit('message', Buffer.from(JSON.stringify(message)), false);
  }
}

const token = (id: number, sessionId: string, seq = id) => ({
  id,
  op: 'journal',
  sessionId,
  runId: 'run',
  body: { events: [{ seq, event: 'token', payload: { text: 'x' }, createdAt: 1 }] },
});

/** Commands that wait until the test lets them finish, in any order; journal writes of several messages too. */
function heldCommands() {
  const held: Array<{ message: IngestMessage; finish: (error?: Error) => void }> = [];
  const merged: Array<{ messages: readonly IngestMessage[]; finish: () => void }> = [];
  const execute = (message: IngestMessage) =>
    new Promise<unknown>((resolve, reject) => {
      held.push({ message, finish: (error) => (error ? reject(error) : resolve({ version: message.id })) });
    });
  const executeJournal = (messages: readonly IngestMessage[]) =>
    new Promise<readonly unknown[]>((resolve) => {
      merged.push({ messages, finish: () => resolve(messages.map((m) => ({ version: m.id, merged: true }))) });
    });
  return { held, merged, execute, executeJournal };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));
const problemOf = (error: unknown): ProblemDetails =>
  error instanceof ProblemError ? problem(error.status, error.code, error.message, error.errors) : problem(500, 'INTERNAL', 'boom');

describe('IngestConnection', () => {
  it('stops reading at the unanswered limit and reads again once a reply went out', async () => {
    const socket = new SocketDouble();
    const { held, execute, executeJournal } = heldCommands();
    new IngestConnection(socket as unknown as WebSocket, { bodyLimitBytes: 65_536, maxUnanswered: 3, execute, executeJournal, problemOf });
    socket.frame(token(1, 'a'));
    socket.frame(token(2, 'b'));
    expect(socket.isPaused).toBe(false);
    socket.frame(token(3, 'c'));
    expect(socket.isPaused).toBe(true);
    await flush();
    held[1]!.finish();
    await flush();
    expect(socket.sent).toEqual([{ id: 2, status: 200, body: { version: 2 } }]);
    expect(socket.isPaused).toBe(false);
  });

  it("runs one session's messages one after another, other sessions' beside them", async () => {
    const socket = new SocketDouble();
    const { held, execute, executeJournal } = heldCommands();
    new IngestConnection(socket as unknown as WebSocket, { bodyLimitBytes: 65_536, maxUnanswered: 100, execute, executeJournal, problemOf });
    socket.frame(token(1, 'a', 1));
    socket.frame(token(2, 'a', 2));
    socket.frame(token(3, 'b', 1));
    await flush();
    // Session a's second message waits for its first; session b's runs at once.
    expect(held.map((h) => h.message.id)).toEqual([1, 3]);
    held[0]!.finish(new ProblemError(409, 'STREAM_VERSION_CONFLICT', 'moved on'));
    await flush();
    await flush();
    expect(held.map((h) => h.message.id)).toEqual([1, 3, 2]);
    held[2]!.finish();
    held[1]!.finish();
    await flush();
    expect(socket.sent.map((r) => [r.id, r.status])).toEqual([
      [1, 409],
      [2, 200],
      [3, 200],
    ]);
  });

  it("writes one run's journal messages that wait together in one write, answering each", async () => {
    const socket = new SocketDouble();
    const { held, merged, execute, executeJournal } = heldCommands();
    new IngestConnection(socket as unknown as WebSocket, { bodyLimitBytes: 65_536, maxUnanswered: 100, execute, executeJournal, problemOf });
    socket.frame(token(1, 'a', 1));
    socket.frame(token(2, 'a', 2));
    socket.frame(token(3, 'a', 3));
    socket.frame({ ...token(4, 'a', 4), runId: 'other' });
    socket.frame({ ...token(5, 'a', 5), body: { ...token(5, 'a', 5).body, expectedVersion: 9 } });
    await flush();
    expect(held.map((h) => h.message.id)).toEqual([1]);
    held[0]!.finish();
    await flush();
    // 2 and 3 waited together: one write. 4 is another run's, 5 has a precondition: each alone, in order.
    expect(merged.map((m) => m.messages.map((message) => message.id))).toEqual([[2, 3]]);
    merged[0]!.finish();
    await flush();
    await flush();
    expect(held.map((h) => h.message.id)).toEqual([1, 4]);
    held[1]!.finish();
    await flush();
    await flush();
    held[2]!.finish();
    await flush();
    expect(socket.sent).toEqual([
      { id: 1, status: 200, body: { version: 1 } },
      { id: 2, status: 200, body: { version: 2, merged: true } },
      { id: 3, status: 200, body: { version: 3, merged: true } },
      { id: 4, status: 200, body: { version: 4 } },
      { id: 5, status: 200, body: { version: 5 } },
    ]);
  });

  it('holds the frames read past the limit, unparsed, and takes them in order as places free', async () => {
    const socket = new SocketDouble();
    const { held, execute, executeJournal } = heldCommands();
    new IngestConnection(socket as unknown as WebSocket, { bodyLimitBytes: 65_536, maxUnanswered: 2, execute, executeJournal, problemOf });
    // One read's chunk holds five frames: `ws` emits them all before the pause takes effect.
    for (const id of [1, 2, 3, 4, 5]) socket.frame(token(id, `s${id}`));
    await flush();
    expect(socket.isPaused).toBe(true);
    expect(held.map((h) => h.message.id)).toEqual([1, 2]);
    held[0]!.finish();
    await flush();
    expect(held.map((h) => h.message.id)).toEqual([1, 2, 3]);
    expect(socket.isPaused).toBe(true);
    for (const h of held.slice(1)) h.finish();
    await flush();
    await flush();
    expect(held.map((h) => h.message.id)).toEqual([1, 2, 3, 4, 5]);
    // Both places taken by 4 and 5, nothing held: still paused until one is answered.
    expect(socket.isPaused).toBe(true);
    held[3]!.finish();
    await flush();
    await flush();
    expect(socket.isPaused).toBe(false);
  });

  it('keeps a place until its reply is written out: a client that does not read its replies is not read either', async () => {
    const socket = new SocketDouble();
    socket.holdWrites = true;
    const { held, execute, executeJournal } = heldCommands();
    new IngestConnection(socket as unknown as WebSocket, { bodyLimitBytes: 65_536, maxUnanswered: 2, execute, executeJournal, problemOf });
    socket.frame(token(1, 'a'));
    socket.frame(token(2, 'b'));
    await flush();
    held[0]!.finish();
    held[1]!.finish();
    await flush();
    expect(socket.sent.map((r) => r.id)).toEqual([1, 2]);
    expect(socket.isPaused).toBe(true);
    socket.frame(token(3, 'c'));
    socket.frame({ id: 4, op: 'journal', sessionId: 'd', body: {} });
    await flush();
    // Neither taken: not run, not even refused, while two replies wait to be written out.
    expect(held).toHaveLength(2);
    expect(socket.sent).toHaveLength(2);
    socket.writeOut();
    await flush();
    expect(held.map((h) => h.message.id)).toEqual([1, 2, 3]);
    expect(socket.sent.map((r) => [r.id, r.status])).toEqual([
      [1, 200],
      [2, 200],
      [4, 400],
    ]);
  });

  it('runs each message of a refused shared write alone: one refusal is its own, its neighbours are stored', async () => {
    const socket = new SocketDouble();
    const alone: number[] = [];
    const execute = async (message: IngestMessage) => {
      alone.push(message.id as number);
      if (message.id === 3) throw new ProblemError(400, 'VALIDATION_FAILED', 'text that cannot be stored');
      return { version: message.id };
    };
    const executeJournal = async () => {
      throw new ProblemError(400, 'VALIDATION_FAILED', 'text that cannot be stored');
    };
    let first: (() => void) | undefined;
    const gated = (message: IngestMessage) => (message.id === 1 ? new Promise<unknown>((resolve) => (first = () => resolve({ version: 1 }))) : execute(message));
    new IngestConnection(socket as unknown as WebSocket, { bodyLimitBytes: 65_536, maxUnanswered: 10, execute: gated, executeJournal, problemOf });
    // 2, 3 and 4 wait together behind 1: one shared write, refused for 3's sake.
    for (const id of [1, 2, 3, 4]) socket.frame(token(id, 'a'));
    await flush();
    first!();
    for (let i = 0; i < 6; i += 1) await flush();
    expect(alone).toEqual([2, 3, 4]);
    expect(socket.sent.map((r) => [r.id, r.status])).toEqual([
      [1, 200],
      [2, 200],
      [3, 400],
      [4, 200],
    ]);
  });

  it('answers a refused message with its problem at once, running nothing', async () => {
    const socket = new SocketDouble();
    const { held, execute, executeJournal } = heldCommands();
    new IngestConnection(socket as unknown as WebSocket, { bodyLimitBytes: 65_536, maxUnanswered: 1, execute, executeJournal, problemOf });
    socket.frame({ id: 9, op: 'journal', sessionId: 'a', body: {} });
    socket.emit('message', Buffer.from('nope'), false);
    await flush();
    expect(held).toEqual([]);
    expect(socket.isPaused).toBe(false);
    expect(socket.sent.map((r) => [r.id, r.status])).toEqual([
      [9, 400],
      [null, 400],
    ]);
  });

  it('on shutdown closes a client that does not read its replies once the grace after the last command is over', async () => {
    const socket = new SocketDouble();
    socket.holdWrites = true;
    const { held, execute, executeJournal } = heldCommands();
    const connection = new IngestConnection(socket as unknown as WebSocket, { bodyLimitBytes: 65_536, maxUnanswered: 10, execute, executeJournal, problemOf, shutdownGraceMs: 60 });
    socket.frame(token(1, 'a'));
    const closing = connection.shutDown();
    await new Promise((resolve) => setTimeout(resolve, 150));
    // The command still runs: no grace yet, however long it takes.
    expect(socket.closedWith).toBeUndefined();
    held[0]!.finish();
    await closing;
    expect(socket.sent.map((r) => r.id)).toEqual([1]);
    expect(socket.closedWith).toBe(CLOSE.goingAway);
  });

  it('on shutdown stops reading, answers what it read, then closes with 1001', async () => {
    const socket = new SocketDouble();
    const { held, execute, executeJournal } = heldCommands();
    const connection = new IngestConnection(socket as unknown as WebSocket, { bodyLimitBytes: 65_536, maxUnanswered: 10, execute, executeJournal, problemOf });
    socket.frame(token(1, 'a'));
    const closing = connection.shutDown();
    expect(socket.isPaused).toBe(true);
    // A frame of the chunk already read when the socket paused: read, so answered too.
    socket.frame(token(2, 'b'));
    await flush();
    expect(socket.closedWith).toBeUndefined();
    held[0]!.finish();
    await flush();
    expect(socket.closedWith).toBeUndefined();
    held[1]!.finish();
    await closing;
    expect(socket.sent.map((r) => r.id)).toEqual([1, 2]);
    expect(socket.isPaused).toBe(true);
    expect(socket.closedWith).toBe(CLOSE.goingAway);
  });
});
