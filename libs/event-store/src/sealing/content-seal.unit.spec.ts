import { randomBytes } from 'node:crypto';
import { MAX_RUN, openSnapshotText, readableEventData, readableEventsData, runEdges, runMemberOf, SealError, sealEventsData, sealSnapshotText } from './content-seal.js';

const key = randomBytes(32);
const STREAM = 'session-run-test';

const token = (seq: number, text: string) => ({ type: 'JournalEventRecorded', data: { runId: 'r1', seq, kind: 'token', payload: { text } } });
const truncation = { type: 'TranscriptTruncated', data: { keepCount: 1, truncatedAt: 5 } };
const title = { type: 'SessionStarted', data: { sessionId: 's', title: 'Lunch plans with Ada', startedAt: 1 } };

/** Stored forms as a read hands them back, with the schema each was written with. */
const asRead = (types: readonly string[], stored: readonly unknown[]) => stored.map((data, i) => ({ type: types[i], data, schema: 1 }));

function sealed(events: readonly { type: string; data: unknown }[]) {
  const stored = sealEventsData(key, STREAM, events);
  return { stored, read: asRead(events.map((e) => e.type), stored) };
}

/** Moves `count` bytes from the end of one member's ciphertext to the start of the next one's (base64 parts). */
function shiftBoundary(first: string, second: string, count: number): [string, string] {
  const split = (s: string) => [s.slice(0, s.indexOf(':', 2) + 1), Buffer.from(s.slice(s.indexOf(':', 2) + 1), 'base64')] as const;
  const [p1, b1] = split(first);
  const [p2, b2] = split(second);
  const moved = b1.subarray(b1.length - count);
  return [p1 + b1.subarray(0, b1.length - count).toString('base64'), p2 + Buffer.concat([moved, b2]).toString('base64')];
}

describe('sealing an append as runs', () => {
  it('seals consecutive events with content as one run, a lone one as before, and leaves events without content plain', () => {
    const events = [title, token(1, 'Hel'), token(2, 'lo'), truncation, token(3, '!')];
    const { stored } = sealed(events);
    const sealedOf = (i: number) => (stored[i] as { sealed?: string }).sealed ?? '';
    expect(sealedOf(0)).toMatch(/^2:0\/3:/);
    expect(sealedOf(1)).toMatch(/^2:1\/3:/);
    expect(sealedOf(2)).toMatch(/^2:2\/3:/);
    expect(stored[3]).toBe(truncation.data);
    expect(sealedOf(4)).toMatch(/^1:/);
    // The plain fields stay readable; no content does.
    expect(stored[1]).toMatchObject({ runId: 'r1', seq: 1, kind: 'token' });
    expect(JSON.stringify(stored)).not.toMatch(/Lunch|Hel|lo"|!/);
    expect(runMemberOf(stored[1])).toMatchObject({ index: 1, size: 3 });
    expect(runMemberOf(stored[4])).toBeNull();
  });

  it('seals a stretch longer than MAX_RUN as several runs, which read back as written', () => {
    const events = Array.from({ length: 2 * MAX_RUN + 10 }, (_, i) => token(i + 1, `t${i}`));
    const { stored, read } = sealed(events);
    expect(stored.map((data) => runMemberOf(data)?.size)).toEqual([...Array(2 * MAX_RUN).fill(MAX_RUN), ...Array(10).fill(10)]);
    expect(runMemberOf(stored[MAX_RUN])?.index).toBe(0);
    expect(readableEventsData(key, STREAM, read)).toEqual(events.map((e) => e.data));
    expect(runEdges(read.slice(MAX_RUN - 1, MAX_RUN + 1))).toEqual({ before: MAX_RUN - 1, after: MAX_RUN - 1 });
  });

  it('reads every event back as it was written, a run with one call', () => {
    const events = [title, token(1, 'Hel'), token(2, 'lo wörld ✓'), truncation, token(3, '!'), token(4, '?')];
    const { read } = sealed(events);
    expect(readableEventsData(key, STREAM, read)).toEqual(events.map((e) => e.data));
  });

  it('reads a run edited anywhere as erased content, whole, and the events around it as written', () => {
    const events = [token(1, 'a'), token(2, 'bb'), token(3, 'ccc'), truncation];
    const erasedRun = [token(1, ''), token(2, ''), token(3, '')].map((e) => ({ ...e.data, payload: {} }));
    const edits: ((stored: Record<string, unknown>[]) => void)[] = [
      // One byte of the second member's ciphertext flipped.
      (s) => {
        const text = s[1].sealed as string;
        const at = text.indexOf(':', 2) + 1;
        const bytes = Buffer.from(text.slice(at), 'base64');
        bytes[0] ^= 1;
        s[1] = { ...s[1], sealed: text.slice(0, at) + bytes.toString('base64') };
      },
      // A byte moved across the boundary between the first two members: the ciphertext as a whole is unchanged.
      (s) => {
        const [a, b] = shiftBoundary(s[0].sealed as string, s[1].sealed as string, 1);
        s[0] = { ...s[0], sealed: a };
        s[1] = { ...s[1], sealed: b };
      },
      // The last two members swapped with their positions.
      (s) => {
        const [b, c] = [s[1].sealed as string, s[2].sealed as string];
        s[1] = { ...s[1], sealed: `2:1/3:${c.slice(c.indexOf(':', 2) + 1)}` };
        s[2] = { ...s[2], sealed: `2:2/3:${b.slice(b.indexOf(':', 2) + 1)}` };
      },
      // A position edited out of shape.
      (s) => {
        s[2] = { ...s[2], sealed: (s[2].sealed as string).replace('2:2/3:', '2:x/3:') };
      },
    ];
    for (const edit of edits) {
      const stored = sealEventsData(key, STREAM, events) as Record<string, unknown>[];
      edit(stored);
      const data = readableEventsData(key, STREAM, asRead(events.map((e) => e.type), stored));
      expect(data.slice(0, 3)).toEqual(erasedRun);
      expect(data[3]).toEqual(truncation.data);
    }
  });

  it('does not open a run under another stream or with other event types', () => {
    const events = [token(1, 'a'), token(2, 'b')];
    const { read } = sealed(events);
    expect(readableEventsData(key, 'another-stream', read).map((d) => d.payload)).toEqual([{}, {}]);
    const retyped = read.map((e) => ({ ...e, type: 'StateRowsObserved' }));
    expect(readableEventsData(key, STREAM, retyped).map((d) => d.rows)).toEqual([[], []]);
  });

  it('refuses a read that holds part of a run, and says how far to reach to hold it whole', () => {
    const events = [truncation, token(1, 'a'), token(2, 'b'), token(3, 'c'), token(4, 'd'), truncation];
    const { read } = sealed(events);
    expect(runEdges(read.slice(2, 4))).toEqual({ before: 1, after: 1 });
    expect(runEdges(read.slice(1, 5))).toEqual({ before: 0, after: 0 });
    expect(runEdges(read.slice(0, 2))).toEqual({ before: 0, after: 3 });
    expect(() => readableEventsData(key, STREAM, read.slice(2))).toThrow(SealError);
    expect(() => readableEventsData(key, STREAM, read.slice(0, 3))).toThrow(SealError);
    // One member read alone, with the key, is a caller's mistake rather than erased content.
    expect(() => readableEventData(key, STREAM, read[2].type, read[2].data, 1)).toThrow(SealError);
  });

  it('takes a position only as sealEventsData writes it: anything else is an edit, no member', () => {
    const body = 'AAAA';
    const tooLong = ['2:0000000001/3:', '2:1/1234567890:', '2:1234567890/3:'];
    for (const position of ['2:/3:', '2:01/3:', '2:1e0/3:', '2:0x1/3:', '2:3/3:', '2:-1/3:', '2:0/0:', `2:0/${MAX_RUN + 1}:`, '2:0/3', '2:1/03:', '2:1/3x', '2:1/:', ...tooLong]) {
      expect(runMemberOf({ sealed: position + body })).toBeNull();
    }
    expect(runMemberOf({ sealed: `2:${MAX_RUN - 1}/${MAX_RUN}:${body}` })).toEqual({ index: MAX_RUN - 1, size: MAX_RUN, at: `2:${MAX_RUN - 1}/${MAX_RUN}:`.length });
  });

  it('reads a run still cut after the caller reached as far as its positions say as erased, when asked to', () => {
    const events = [token(1, 'a'), token(2, 'b'), token(3, 'c'), truncation];
    const { read } = sealed(events);
    const cut = read.slice(1);
    expect(readableEventsData(key, STREAM, cut, { cut: 'erased' }).map((d) => d.payload)).toEqual([{}, {}, undefined]);
    expect(readableEventsData(key, STREAM, read.slice(0, 2), { cut: 'erased' }).map((d) => d.payload)).toEqual([{}, {}]);
  });

  it('reads every member as erased without the key, even a run cut by the read', () => {
    const events = [token(1, 'a'), token(2, 'b'), token(3, 'c')];
    const { read } = sealed(events);
    expect(readableEventsData(null, STREAM, read.slice(1)).map((d) => d.payload)).toEqual([{}, {}]);
    expect(readableEventData(null, STREAM, read[1].type, read[1].data, 1)).toMatchObject({ payload: {}, seq: 2 });
  });

  it('reads a run whose member is not whole base64 as erased', () => {
    const events = [token(1, 'a'), token(2, 'bb'), truncation];
    for (const edit of [(text: string) => text.slice(0, -1), (text: string) => `${text}A`, (text: string) => text.replace(/.$/, '!')]) {
      const stored = sealEventsData(key, STREAM, events) as Record<string, unknown>[];
      stored[1] = { ...stored[1], sealed: edit(stored[1].sealed as string) };
      const data = readableEventsData(key, STREAM, asRead(events.map((e) => e.type), stored));
      expect(data.map((d) => d.payload)).toEqual([{}, {}, undefined]);
      expect(data[2]).toEqual(truncation.data);
    }
  });

  it('keeps each field of the stored form where a reader finds it, even one named __proto__', () => {
    const [first, second] = sealEventsData(key, STREAM, [token(1, 'x'), token(2, 'y')]);
    // A stored form (parsed from its table as any reader parses it) with an own field named __proto__.
    const odd = JSON.parse(JSON.stringify(first).replace('{', '{"__proto__":{"polluted":true},')) as Record<string, unknown>;
    const [data] = readableEventsData(key, STREAM, asRead(['JournalEventRecorded', 'JournalEventRecorded'], [odd, second]));
    expect(Object.keys(data)).toEqual(['__proto__', 'runId', 'seq', 'kind', 'payload']);
    expect(data.payload).toEqual({ text: 'x' });
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect((data as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe('sealed snapshot texts', () => {
  const state = JSON.stringify({ version: 7, title: 'Lunch plans with Ada "and" Bob \\ ✓' });

  it('opens a snapshot as written, and as another JSON writer could have written it', () => {
    const stored = sealSnapshotText(key, STREAM, state);
    expect(openSnapshotText(key, STREAM, stored)).toBe(state);
    // The same JSON value written with a space, and with a character escaped: read by parsing it.
    for (const other of [stored.replace('":"', '": "'), stored.replace('":"1:', '":"\\u0031:')]) {
      expect(other).not.toBe(stored);
      expect(openSnapshotText(key, STREAM, other)).toBe(state);
    }
  });

  it('reads a plain snapshot as it is, and a sealed one without the key or under another stream as none', () => {
    expect(openSnapshotText(key, STREAM, state)).toBe(state);
    const stored = sealSnapshotText(key, STREAM, state);
    expect(openSnapshotText(null, STREAM, stored)).toBeNull();
    expect(() => openSnapshotText(key, 'another-stream', stored)).toThrow();
  });
});
