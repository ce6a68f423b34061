import { createHash } from 'node:crypto';
import type { MessageRow, ToolCard } from './api-types.js';
import { applyDelta, type HeldTranscript } from './verified-transcript.js';

/** README "Transcript hash", written out: rows with keys in sorted order are their own canonical JSON. */
function readmeHash(messages: readonly MessageRow[], toolCards: readonly ToolCard[]): string {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const last = messages.reduce((link, row) => sha(link + JSON.stringify(row)), sha('chronicle transcript hash v2'));
  return sha(last + JSON.stringify(toolCards));
}

const row = (n: number): MessageRow => ({ content: `message ${n}`, role: n % 2 === 0 ? 'user' : 'assistant', timestamp: 1_800_000_000 + n });
const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => row(from + i));
const base = { sessionId: 's', view: 'display' as const, source: 'patch' as const };
const patch = (since: number, version: number, from: number, messages: MessageRow[], whole: MessageRow[]) => ({
  since,
  version,
  from,
  messages,
  toolCards: [],
  markers: [],
  hash: readmeHash(whole, []),
});

describe('applyDelta', () => {
  let held: HeldTranscript;
  beforeEach(() => {
    held = applyDelta(null, patch(0, 3, 0, rows(0, 3), rows(0, 3)), base)!;
  });

  it('takes a whole transcript (from 0) when its rows hash to the served hash', () => {
    expect(held.state).toMatchObject({ version: 3, since: 0, messages: rows(0, 3), streaming: null, source: 'patch' });
  });

  it('keeps the first `from` rows held and appends the patch, checked against the hash of the result', () => {
    const next = applyDelta(held, patch(3, 5, 2, rows(2, 5), rows(0, 5)), base);
    expect(next?.state).toMatchObject({ version: 5, since: 3, messages: rows(0, 5) });
    // The kept rows are the same objects: their chain links are reused, not hashed again.
    expect(next!.state.messages[1]).toBe(held.state.messages[1]);
    expect(next!.links.slice(0, 2)).toEqual(held.links.slice(0, 2));
  });

  describe('a compact patch (`compact=1`)', () => {
    // Keys in sorted order: its own canonical JSON, as readmeHash needs.
    const card = { args: {}, assistantMessageIndex: 1, done: true, duration: 1, isError: false, name: 'grep', preview: 'x', recoveredFromRunJournal: true, recoveredRunId: 'r' } as ToolCard;
    const compact = (since: number, version: number, whole: MessageRow[], delta: object) => {
      const { toolCards: _cards, markers: _markers, ...rest } = patch(since, version, whole.length, [], whole);
      return { ...rest, hash: readmeHash(whole, [card]), streamingDelta: null, ...delta };
    };

    it('keeps the lists it leaves out, checks the hash with them, and applies the streaming output as a change', () => {
      const withCard = applyDelta(held, { ...patch(3, 4, 3, [], rows(0, 3)), toolCards: [card], hash: readmeHash(rows(0, 3), [card]) }, base)!;
      const first = applyDelta(withCard, compact(4, 5, rows(0, 3), { streamingDelta: { runId: 'r', textFrom: 0, text: 'Run', reasoningFrom: 0, reasoning: '', toolCards: [] } }), base);
      expect(first?.state).toMatchObject({ version: 5, toolCards: [card], markers: [], streaming: { runId: 'r', text: 'Run', reasoning: '', toolCards: [] } });
      const second = applyDelta(first, compact(5, 6, rows(0, 3), { streamingDelta: { runId: 'r', textFrom: 3, text: ' npm', reasoningFrom: 0, reasoning: '' } }), base);
      expect(second?.state.streaming).toEqual({ runId: 'r', text: 'Run npm', reasoning: '', toolCards: [] });
      // The same rows and cards as held: the held hash stands for them, and a served hash that differs is refused.
      expect(second!.links).toBe(first!.links);
      expect(applyDelta(second, compact(6, 7, rows(0, 3), { hash: 'not-the-hash' }), base)).toBeNull();
    });

    it('cannot apply one that leaves out a list or a streaming base it does not hold', () => {
      expect(applyDelta(null, compact(0, 1, rows(0, 3), { from: 0, messages: rows(0, 3) }), base)).toBeNull();
      expect(applyDelta(held, compact(3, 4, rows(0, 3), { toolCards: [card], markers: [], streamingDelta: { runId: 'r', textFrom: 2, text: 'x', reasoningFrom: 0, reasoning: '' } }), base)).toBeNull();
    });
  });

  describe('when the result does not hash to the served hash', () => {
    it('refuses a patch cut from another version than the one held', () => {
      expect(applyDelta(held, patch(4, 5, 3, rows(3, 5), rows(0, 5)), base)).toBeNull();
    });

    it('refuses a patch whose kept rows differ from the ones held', () => {
      const other = applyDelta(null, patch(0, 3, 0, [row(0), row(9), row(2)], [row(0), row(9), row(2)]), base)!;
      expect(applyDelta(other, patch(3, 4, 3, [row(3)], rows(0, 4)), base)).toBeNull();
    });

    it('refuses a patch keeping more rows than are held', () => {
      expect(applyDelta(held, patch(3, 5, 4, [row(4)], rows(0, 5)), base)).toBeNull();
    });

    it('refuses tool cards that differ from the hashed ones', () => {
      const card = { name: 'grep', preview: 'x', args: {}, done: true, isError: false, duration: 1, assistantMessageIndex: 1 } as unknown as ToolCard;
      expect(applyDelta(held, { ...patch(3, 4, 3, [], rows(0, 3)), toolCards: [card] }, base)).toBeNull();
    });
  });
});
