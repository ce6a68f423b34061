import type { WriteResult } from './api-types.js';
import { ChronicleProblem } from './chronicle-problem.js';
import { DeliveryUnknown, MessageWindow, type WindowMessage } from './message-window.js';

/** Enqueues a message; answers the frames admitted and the settled outcome, once there is one. */
function enqueue(window: MessageWindow, message: Pick<WindowMessage, 'op' | 'runId' | 'body'>) {
  const outcome: { answer?: WriteResult; error?: Error } = {};
  const frames = window.enqueue({ ...message, sessionId: 's', resolve: (answer) => (outcome.answer = answer), reject: (error) => (outcome.error = error) });
  return { frames, outcome };
}

const token = (window: MessageWindow, seq: number, text = 'x') =>
  enqueue(window, { op: 'journal', runId: 'r', body: { events: [{ seq, event: 'token', payload: { text }, createdAt: 1 }] } });

/** A window on an open connection. */
const connected = (max: number): MessageWindow => {
  const window = new MessageWindow(max);
  window.reconnected();
  return window;
};

const idsOf = (frames: readonly string[]) => frames.map((frame) => (JSON.parse(frame) as { id: number }).id);
const ok = (id: number) => ({ id, status: 200, body: { sessionId: 's', version: id, appended: 1, duplicate: false } });

describe('MessageWindow', () => {
  it('admits at most max messages; the rest wait and are admitted in order as replies free places', () => {
    const window = connected(2);
    expect([1, 2, 3, 4].flatMap((seq) => idsOf(token(window, seq).frames))).toEqual([1, 2]);
    expect(window.pending).toBe(4);
    expect(idsOf(window.answer(ok(2)))).toEqual([3]);
    expect(idsOf(window.reconnected())).toEqual([1, 3]);
    expect(JSON.parse(window.reconnected()[1]!)).toEqual({ id: 3, op: 'journal', sessionId: 's', runId: 'r', body: { events: [{ seq: 3, event: 'token', payload: { text: 'x' }, createdAt: 1 }] } });
  });

  it("settles each message with its reply: the answer, or the reply's problem details as a ChronicleProblem", () => {
    const window = connected(8);
    const [first, second] = [token(window, 1), token(window, 2)];
    window.answer(ok(1));
    window.answer({ id: 2, status: 409, body: { type: 't', title: 'Conflict', status: 409, detail: 'moved on', code: 'A_CONFLICT' } });
    expect(first.outcome.answer).toMatchObject({ version: 1 });
    expect(second.outcome.error).toBeInstanceOf(ChronicleProblem);
    expect(second.outcome.error).toMatchObject({ status: 409, code: 'A_CONFLICT', detail: 'moved on', errors: [] });
    expect(window.answer(ok(2))).toEqual([]);
    expect(window.pending).toBe(0);
  });

  it('resolves ready() once a place is free and drain() once nothing is pending', async () => {
    const window = connected(1);
    token(window, 1);
    token(window, 2);
    const events: string[] = [];
    void window.ready().then(() => events.push('ready'));
    void window.drain().then(() => events.push('drained'));
    window.answer(ok(1));
    await Promise.resolve();
    expect(events).toEqual([]);
    window.answer(ok(2));
    await Promise.resolve();
    expect(events).toEqual(['ready', 'drained']);
  });

  describe('after a 1009 close', () => {
    it('refuses the largest unanswered message alone (413) and keeps the others, in order', () => {
      const window = connected(8);
      const [, big] = [token(window, 1), token(window, 2, 'x'.repeat(500)), token(window, 3, 'y'.repeat(20))];
      window.rejectLargest();
      expect(big.outcome.error).toMatchObject({ status: 413, code: 'MESSAGE_TOO_BIG' });
      expect(idsOf(window.reconnected())).toEqual([1, 3]);
    });
  });

  describe('when the connection drops', () => {
    it('keeps the messages a repeat makes duplicates, to send again in order, and fails the others with DeliveryUnknown', () => {
      const window = connected(8);
      const journal = token(window, 1);
      const rows = enqueue(window, { op: 'messages', runId: undefined, body: { rows: [{ role: 'user', content: 'hi' }] } });
      const guarded = enqueue(window, { op: 'journal', runId: 'r', body: { events: [], expectedVersion: 4 } });
      const settle = enqueue(window, { op: 'settle', runId: 'r', body: { rows: [], settledAt: 1 } });
      expect(window.disconnected()).toBe(2);
      expect(rows.outcome.error).toBeInstanceOf(DeliveryUnknown);
      expect(rows.outcome.error).toMatchObject({ op: 'messages', sessionId: 's' });
      expect(guarded.outcome.error).toBeInstanceOf(DeliveryUnknown);
      expect([journal, settle].map((m) => m.outcome)).toEqual([{}, {}]);
      expect(idsOf(window.reconnected())).toEqual([1, 4]);
    });

    it("sends again only the last unanswered observation of a row: an earlier one would be stored again after it", () => {
      const window = connected(8);
      const observe = (rowId: number, content: string) =>
        enqueue(window, { op: 'state-rows', runId: undefined, body: { rows: [{ rowId, role: 'assistant', content }] } });
      const [first, other, second] = [observe(1, 'A'), observe(2, 'C'), observe(1, 'B')];
      expect(window.disconnected()).toBe(2);
      expect(first.outcome.error).toBeInstanceOf(DeliveryUnknown);
      expect(first.outcome.error).toMatchObject({ op: 'state-rows' });
      expect([other, second].map((m) => m.outcome)).toEqual([{}, {}]);
      expect(idsOf(window.reconnected())).toEqual([2, 3]);
    });

    it('sends a message admitted while disconnected on the next connection, whatever its op', () => {
      const window = connected(8);
      window.disconnected();
      const rows = enqueue(window, { op: 'messages', runId: undefined, body: { rows: [] } });
      expect(window.disconnected()).toBe(0);
      expect(rows.outcome).toEqual({});
      expect(idsOf(window.reconnected())).toEqual([1]);
    });
  });

  it('fails every message, admitted or waiting, with one error', async () => {
    const window = connected(1);
    const messages = [token(window, 1), token(window, 2)];
    const error = new Error('refused');
    window.failAll(error);
    expect(messages.map((m) => m.outcome.error)).toEqual([error, error]);
    expect(window.pending).toBe(0);
    await expect(window.drain()).resolves.toBeUndefined();
  });
});
