import fc from 'fast-check';
import { journalBody, plainJournalBody } from './ingestion.schemas.js';

/** A journal body as a worker might send it (parsed JSON): well formed mostly, and each field wrong in turn. */
const eventArb = fc
  .record(
    {
      seq: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 1, max: 1e6 }) }, fc.constantFrom(0, 1.5, '2')),
      event: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('token', 'interim_assistant', 'done', 'tool') }, fc.constantFrom('', 1)),
      payload: fc.oneof({ weight: 8, arbitrary: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })) }, fc.constantFrom(null, [], 'x')),
      createdAt: fc.oneof({ weight: 8, arbitrary: fc.double({ min: 0, max: 2e9, noNaN: true }) }, fc.constantFrom('1', null)),
      durability: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('durable', 'relaxed') }, fc.constantFrom('later', 1)),
      other: fc.constant(true),
    },
    { requiredKeys: ['seq', 'event', 'payload', 'createdAt'] },
  )
  .map(({ other, ...event }) => (other === undefined || Math.abs(event.seq as number) % 7 !== 0 ? event : { ...event, other }));

const bodyArb = fc
  .record(
    {
      events: fc.oneof({ weight: 8, arbitrary: fc.array(eventArb, { minLength: 1, maxLength: 3 }) }, fc.constant([]), fc.constant({})),
      expectedVersion: fc.oneof({ weight: 4, arbitrary: fc.nat() }, fc.constantFrom(-1, 2.5, '3')),
      runId: fc.constantFrom(undefined, undefined, undefined, 'r'),
    },
    { requiredKeys: ['events', 'runId'] },
  )
  .map((body) => JSON.parse(JSON.stringify(body)) as unknown);

describe('a journal body checked without zod (POST …/journal and the socket op journal)', () => {
  it('answers exactly what journalBody answers whenever it answers, durability and the relaxed rule included', () => {
    let answered = 0;
    let relaxed = 0;
    fc.assert(
      fc.property(bodyArb, (body) => {
        const fast = plainJournalBody(body);
        if (fast === null) return;
        answered += 1;
        if (fast.events.some((event) => event.durability === 'relaxed')) relaxed += 1;
        const zod = journalBody.safeParse(body);
        expect(zod.success).toBe(true);
        expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
        expect(Object.keys(fast)).toEqual(Object.keys(zod.data!));
        fast.events.forEach((event, index) => {
          expect(Object.keys(event)).toEqual(Object.keys(zod.data!.events[index]));
          expect(event.payload).toBe(zod.data!.events[index].payload);
        });
      }),
      { numRuns: 3000 },
    );
    expect(answered).toBeGreaterThan(60);
    expect(relaxed).toBeGreaterThan(5);
  });

  it('leaves a relaxed terminal event to the schema, which names the field', () => {
    const body = { events: [{ seq: 1, event: 'done', payload: {}, createdAt: 1, durability: 'relaxed' }] };
    expect(plainJournalBody(body)).toBeNull();
    const zod = journalBody.safeParse(body);
    expect(zod.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['events.0.durability']);
  });

  it('refuses an unknown key beside a field that is not enumerable, as the strict schema does', () => {
    const body: Record<string, unknown> = { events: [{ seq: 1, event: 'token', payload: {}, createdAt: 1 }], extra: 1 };
    Object.defineProperty(body, 'expectedVersion', { value: 1, enumerable: false });
    expect(journalBody.safeParse(body).success).toBe(false);
    expect(plainJournalBody(body)).toBeNull();
  });

  it('takes the shortcut for the bodies a worker streams', () => {
    const token = { seq: 1, event: 'token', payload: { text: 'Hel' }, createdAt: 1_780_000_000.25 };
    expect(plainJournalBody({ events: [token] })).toEqual({ events: [token] });
    expect(plainJournalBody({ events: [{ ...token, durability: 'relaxed' }], expectedVersion: 3 })).toEqual({
      events: [{ ...token, durability: 'relaxed' }],
      expectedVersion: 3,
    });
  });
});
