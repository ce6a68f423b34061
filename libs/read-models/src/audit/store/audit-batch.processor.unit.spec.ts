import { canonicalJson } from '#domain/replay';
import { chainHash } from '#event-store';
import { exchange, startedEvent } from '../audit.fixtures.js';
import { AuditBatchProcessor, DATA_SLICE, type StreamPart } from './audit-batch.processor.js';
import { PackedChains } from './packed-chains.js';
import { PACKED_FIELD, PACKED_RECORD } from './packed-events.format.js';
import { StreamingSessionAudit } from './streaming-session-audit.js';

/** A stream's events as the reader packs them: `part␟version␟hash␟type␟data as stored`, one line each. */
function packed(part: number, sessionId: string, count: number) {
  const events = [startedEvent(sessionId, `Session ${sessionId}`), ...Array.from({ length: count - 1 }, (_, i) => exchange(i + 1))];
  let previous = '';
  const lines = events.map((event, i) => {
    previous = chainHash(previous, i + 1, event.type, event.data);
    return [part, i + 1, previous, event.type, 1, canonicalJson(event.data)].join(PACKED_FIELD);
  });
  return { lines, head: { version: count, lastHash: previous } };
}

const begin = (head: { version: number; lastHash: string }): StreamPart['begin'] => ({ head, streamId: 'unused', dataKey: null, snapshots: [], summary: null, index: null, indexCaughtUp: false });

/** Lines packed as the reader sends them: texts of at most `size` lines (a stream's lines may span texts). */
const pieces = (lines: readonly string[], size = 100): string[] =>
  Array.from({ length: Math.ceil(lines.length / size) }, (_, i) => lines.slice(i * size, (i + 1) * size).join(PACKED_RECORD));

/** The reading thread's batch (chains followed) folded by a processor, as `auditAll` does it. */
const audited = async (chains: PackedChains, processor: AuditBatchProcessor, id: number, parts: StreamPart[], lines: string[]) =>
  processor.process(await chains.toBatch(id, parts, pieces(lines)));

/** The same lines audited the way the single-session audits do it: each link parsed alone, chain and fold in one. */
function reference(sessionId: string, lines: readonly string[], head: { version: number; lastHash: string }) {
  const audit = new StreamingSessionAudit(sessionId, head, { snapshots: [], summary: null, index: null, indexCaughtUp: false });
  audit.feed(
    lines.map((line) => {
      const [, version, hash, type, , text] = line.split(PACKED_FIELD) as [string, string, string, string, string, string];
      return { version: Number(version), hash, type, text, data: JSON.parse(text) as unknown };
    }),
  );
  return audit.finish();
}

describe('a batch of packed events', () => {
  it('audits each part from its own lines, a part with none too', async () => {
    const a = packed(1, 'pa', 3);
    const c = packed(3, 'pc', 2);
    const parts: StreamPart[] = [
      { sessionId: 'pa', begin: begin(a.head), end: true },
      { sessionId: 'pb', begin: begin({ version: 2, lastHash: 'x' }), end: true },
      { sessionId: 'pc', begin: begin(c.head), end: true },
    ];
    const result = await audited(new PackedChains(), new AuditBatchProcessor(), 1, parts, [...a.lines, ...c.lines]);
    expect(result.events).toBe(5);
    expect(result.audits.map((audit) => [audit.sessionId, audit.match, audit.version, audit.chain.firstBrokenVersion])).toEqual([
      ['pa', true, 3, null],
      ['pb', false, 0, 1],
      ['pc', true, 2, null],
    ]);
  });

  it('carries a long stream across batches and finds an edited event in a later one', async () => {
    const { lines, head } = packed(1, 'long', 600);
    const edited = lines.map((line, i) => (i === 450 ? line.replace('question', 'QUESTION') : line));
    const chains = new PackedChains();
    const processor = new AuditBatchProcessor();
    const first = await audited(chains, processor, 1, [{ sessionId: 'long', begin: begin(head), end: false }], edited.slice(0, 300));
    expect(first).toEqual({ id: 1, events: 300, audits: [] });
    const last = await audited(chains, processor, 2, [{ sessionId: 'long', end: true }], edited.slice(300));
    expect(last.audits[0]).toMatchObject({ sessionId: 'long', version: 600, match: false, chain: { ok: false, firstBrokenVersion: 451 } });
    // The edit is folded too: the replayed transcript is not the untouched one's.
    const untouched = await audited(new PackedChains(), new AuditBatchProcessor(), 1, [{ sessionId: 'long', begin: begin(head), end: true }], lines);
    expect(untouched.audits[0]).toMatchObject({ match: true, chain: { ok: true } });
    expect(last.audits[0].replayedHash).not.toBe(untouched.audits[0].replayedHash);
    expect(last.audits[0].replayedHash).toBe(reference('long', edited, head).replayedHash);
  });

  it('hashes a stored text that is not the canonical one the slow way (parsed, then canonicalized)', async () => {
    const { lines, head } = packed(1, 'spaced', 4);
    const spaced = lines.map((line, i) => (i === 2 ? line.replace(/":/g, '": ') : line));
    expect(spaced[2]).not.toBe(lines[2]);
    const result = await audited(new PackedChains(), new AuditBatchProcessor(), 1, [{ sessionId: 'spaced', begin: begin(head), end: true }], spaced);
    expect(result.audits[0]).toMatchObject({ match: true, chain: { ok: true, firstBrokenVersion: null } });
  });

  it('refuses lines out of part order rather than auditing them against the wrong session', async () => {
    const a = packed(1, 'pa', 2);
    const b = packed(2, 'pb', 2);
    const parts: StreamPart[] = [
      { sessionId: 'pa', begin: begin(a.head), end: true },
      { sessionId: 'pb', begin: begin(b.head), end: true },
    ];
    await expect(new PackedChains().toBatch(1, parts, [b.lines.join(PACKED_RECORD), a.lines.join(PACKED_RECORD)])).rejects.toThrow(/out of part order/);
    await expect(new PackedChains().toBatch(1, [{ sessionId: 'pb', end: true }], pieces(b.lines))).rejects.toThrow(/later part of pb came before its first/);
  });

  it('refuses a stream that ends without its chain verdict, and a batch whose data does not add up', async () => {
    const a = packed(1, 'pa', 2);
    const batch = await new PackedChains().toBatch(1, [{ sessionId: 'pa', begin: begin(a.head), end: true }], pieces(a.lines));
    const unchained = { ...batch, parts: batch.parts.map(({ chain: _chain, ...part }) => part) };
    expect(() => new AuditBatchProcessor().process(unchained)).toThrow(/without its chain's verdict/);
    expect(() => new AuditBatchProcessor().process({ ...batch, data: [] })).toThrow(/2 events with 0 slices/);
    expect(() => new AuditBatchProcessor().process({ ...batch, counts: [3] })).toThrow(/count more events than it holds/);
    expect(() => new AuditBatchProcessor().process({ ...batch, counts: [1] })).toThrow(/events of no part/);
  });

  it('folds parts that share slices of data (a slice crossing parts) as each stream alone', async () => {
    const streams = [packed(1, 'sa', 200), packed(2, 'sb', 300), packed(3, 'sc', 1), packed(4, 'sd', 150)];
    const ids = ['sa', 'sb', 'sc', 'sd'];
    const parts = streams.map((s, i): StreamPart => ({ sessionId: ids[i] as string, begin: begin(s.head), end: true }));
    const batch = await new PackedChains().toBatch(1, parts, pieces(streams.flatMap((s) => s.lines), 256));
    expect(batch.counts).toEqual([200, 300, 1, 150]);
    expect(batch.data).toHaveLength(3);
    const result = new AuditBatchProcessor().process(batch);
    expect(result.events).toBe(651);
    expect(result.audits.map((audit) => [audit.sessionId, audit.version, audit.match, audit.replayedHash])).toEqual(
      streams.map((s, i) => {
        const expected = reference(ids[i] as string, s.lines, s.head);
        return [ids[i], expected.version, true, expected.replayedHash];
      }),
    );
  });

  it('folds data parsed a slice at a time like data parsed whole, and refuses a text that is not one JSON value', async () => {
    const { lines, head } = packed(1, 'sliced', 700);
    const parts = (): StreamPart[] => [{ sessionId: 'sliced', begin: begin(head), end: true }];
    const batch = await new PackedChains().toBatch(1, parts(), pieces(lines));
    expect(batch.data).toHaveLength(Math.ceil(700 / DATA_SLICE));
    const whole = new AuditBatchProcessor().process(batch);
    expect(whole.audits[0]).toMatchObject({ sessionId: 'sliced', version: 700, match: true, replayedHash: reference('sliced', lines, head).replayedHash });
    // A text that is not one JSON value (the json column forbids it) fails the audit, never shifts the others.
    for (const [bad, error] of [
      ['{"a":', SyntaxError],
      ['1,2', /not one JSON value per event/],
    ] as const) {
      const edited = lines.map((line, i) => (i === 300 ? `${line.slice(0, line.lastIndexOf(PACKED_FIELD) + 1)}${bad}` : line));
      await expect(audited(new PackedChains(), new AuditBatchProcessor(), 1, parts(), edited)).rejects.toThrow(error);
    }
  });
});
