import fc from 'fast-check';
import { ingestFrame, plainFrame } from './ingest-frames.js';

/** Envelopes as a worker might send them (parsed JSON): well formed mostly, each field wrong in turn. */
const frameArb = fc
  .record(
    {
      id: fc.oneof(
        { weight: 4, arbitrary: fc.oneof(fc.string({ minLength: 1, maxLength: 128 }), fc.integer()) },
        fc.constantFrom('', 'x'.repeat(129), 1.5, 2 ** 53, null, true),
      ),
      op: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('journal', 'submission', 'settle', 'state-rows', 'messages') }, fc.constantFrom('nope', 'toString', 3)),
      sessionId: fc.oneof({ weight: 4, arbitrary: fc.string() }, fc.constantFrom(7, null)),
      runId: fc.oneof({ weight: 4, arbitrary: fc.string() }, fc.constantFrom(7, null)),
      body: fc.oneof(fc.constant({ events: [] }), fc.jsonValue({ maxDepth: 2 })),
      extra: fc.constant(1),
    },
    { requiredKeys: [] },
  )
  .map((frame) => {
    const { extra, ...usual } = frame;
    return JSON.parse(JSON.stringify(Object.keys(usual).length >= 4 && extra !== undefined && typeof usual.id === 'number' ? frame : usual)) as unknown;
  });

describe('a /v1/ingest envelope checked without zod', () => {
  it('answers exactly what the envelope schema answers whenever it answers, and leaves everything else to it', () => {
    let answered = 0;
    fc.assert(
      fc.property(frameArb, (parsed) => {
        const fast = plainFrame(parsed);
        if (fast === null) return;
        answered += 1;
        const zod = ingestFrame.safeParse(parsed);
        expect(zod.success).toBe(true);
        expect(fast).toStrictEqual(zod.data);
        expect(fast.body).toBe(zod.data!.body);
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(100);
  });

  it('refuses an unknown key beside a field that is not enumerable, as the strict schema does', () => {
    const frame: Record<string, unknown> = { op: 'journal', sessionId: 's', runId: 'r', body: {}, extra: 1 };
    Object.defineProperty(frame, 'id', { value: 1, enumerable: false });
    expect(ingestFrame.safeParse(frame).success).toBe(false);
    expect(plainFrame(frame)).toBeNull();
  });

  it('takes the shortcut for a journal message', () => {
    const frame = { id: 7, op: 'journal', sessionId: 's', runId: 'r', body: { events: [] } };
    expect(plainFrame(frame)).toEqual(frame);
    expect(plainFrame({ ...frame, op: 'hasOwnProperty' })).toBeNull();
  });
});
