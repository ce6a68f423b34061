import { chainHash } from '#event-store';
import { exchange, startedEvent } from '../audit.fixtures.js';
import { AuditBatchProcessor, type StreamPart } from './audit-batch.processor.js';
import { PACKED_FIELD, PACKED_RECORD } from './packed-events.format.js';

/** A stream's events as the reader packs them: `part⇥version⇥hash⇥type as JSON⇥data`, one line each. */
function packed(part: number, sessionId: string, count: number) {
  const events = [startedEvent(sessionId, `Session ${sessionId}`), ...Array.from({ length: count - 1 }, (_, i) => exchange(i + 1))];
  let previous = '';
  const lines = events.map((event, i) => {
    previous = chainHash(previous, i + 1, event.type, event.data);
    return [part, i + 1, previous, event.type, JSON.stringify(event.data)].join(PACKED_FIELD);
  });
  return { lines, head: { version: count, lastHash: previous } };
}

const begin = (head: { version: number; lastHash: string }): StreamPart['begin'] => ({ head, snapshots: [], summary: null, index: null, indexCaughtUp: false });

describe('a batch of packed events', () => {
  it('audits each part from its own lines, a part with none too', () => {
    const a = packed(1, 'pa', 3);
    const c = packed(3, 'pc', 2);
    const parts: StreamPart[] = [
      { sessionId: 'pa', begin: begin(a.head), end: true },
      { sessionId: 'pb', begin: begin({ version: 2, lastHash: 'x' }), end: true },
      { sessionId: 'pc', begin: begin(c.head), end: true },
    ];
    const result = new AuditBatchProcessor().process({ id: 1, parts, events: [...a.lines, ...c.lines].join(PACKED_RECORD) });
    expect(result.events).toBe(5);
    expect(result.audits.map((audit) => [audit.sessionId, audit.match, audit.chain.firstBrokenVersion])).toEqual([
      ['pa', true, null],
      ['pb', false, 1],
      ['pc', true, null],
    ]);
  });

  it('carries a long stream across batches and finds an edited event in a later one', () => {
    const { lines, head } = packed(1, 'long', 600);
    const edited = lines.map((line, i) => (i === 450 ? line.replace('question', 'QUESTION') : line));
    const processor = new AuditBatchProcessor();
    const first = processor.process({ id: 1, parts: [{ sessionId: 'long', begin: begin(head), end: false }], events: edited.slice(0, 300).join(PACKED_RECORD) });
    expect(first).toEqual({ id: 1, events: 300, audits: [] });
    const last = processor.process({ id: 2, parts: [{ sessionId: 'long', end: true }], events: edited.slice(300).join(PACKED_RECORD) });
    expect(last.audits[0]).toMatchObject({ sessionId: 'long', version: 600, match: false, chain: { ok: false, firstBrokenVersion: 451 } });
  });

  it('refuses lines out of part order rather than auditing them against the wrong session', () => {
    const a = packed(1, 'pa', 2);
    const b = packed(2, 'pb', 2);
    const parts: StreamPart[] = [
      { sessionId: 'pa', begin: begin(a.head), end: true },
      { sessionId: 'pb', begin: begin(b.head), end: true },
    ];
    expect(() => new AuditBatchProcessor().process({ id: 1, parts, events: [...b.lines, ...a.lines].join(PACKED_RECORD) })).toThrow(/out of part order/);
  });

  it('folds the data of a slice parsed as one array like data parsed one text at a time', () => {
    const { lines, head } = packed(1, 'sliced', 700);
    const whole = new AuditBatchProcessor().process({ id: 1, parts: [{ sessionId: 'sliced', begin: begin(head), end: true }], events: lines.join(PACKED_RECORD) });
    expect(whole.audits[0]).toMatchObject({ sessionId: 'sliced', version: 700, match: true });
    // A text that is not one JSON value (the json column forbids it) is parsed alone and fails as such.
    for (const bad of ['{"a":', '1,2']) {
      const edited = lines.map((line, i) => (i === 300 ? `${line.slice(0, line.lastIndexOf(PACKED_FIELD) + 1)}${bad}` : line));
      const run = () => new AuditBatchProcessor().process({ id: 1, parts: [{ sessionId: 'sliced', begin: begin(head), end: true }], events: edited.join(PACKED_RECORD) });
      expect(run).toThrow(SyntaxError);
    }
  });
});
