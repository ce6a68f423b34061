import fc from 'fast-check';
import { recordJournalEventsSchema } from '../session/session.commands.js';
import { MAX_FREE_JSON_DEPTH } from './free-json.schema.js';
import { plainJournalEvent, plainRecordJournalEvents } from './journal-event.fast-parse.js';
import { journalEventSchema } from './row.schemas.js';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
};

/** Values a field may hold: well formed ones often, and every kind of wrong one. */
const seqArb = fc.oneof({ weight: 16, arbitrary: fc.integer({ min: 1, max: 1_000_000 }) }, fc.constantFrom(0, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, Number.NaN, '1', null));
const eventArb = fc.oneof({ weight: 16, arbitrary: fc.constantFrom('token', 'tool', 'done', 'x') }, fc.constantFrom('', 7, null), fc.string());
const createdAtArb = fc.oneof({ weight: 16, arbitrary: fc.double({ min: 0, max: 2e9, noNaN: true }) }, fc.constantFrom(-0, -5, Number.NaN, Number.POSITIVE_INFINITY, '1', null), fc.integer());
const payloadArb = fc.oneof(
  { weight: 16, arbitrary: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })) },
  fc.constantFrom(null, 'text', 3),
  fc.array(fc.jsonValue({ maxDepth: 1 })),
  fc.constantFrom(nested(MAX_FREE_JSON_DEPTH - 1), nested(MAX_FREE_JSON_DEPTH), nested(MAX_FREE_JSON_DEPTH + 5)).map((deep) => ({ deep })),
  fc.constant(new Date(0)),
  fc.constant(Object.assign(Object.create(null) as object, { a: 1 })),
);

/** A journal event as a worker might send it: fields dropped, extra keys, __proto__ as data (what JSON.parse makes). */
const fieldsArb = (requiredKeys: ('seq' | 'event' | 'payload' | 'createdAt')[]) =>
  fc.record({ seq: seqArb, event: eventArb, payload: payloadArb, createdAt: createdAtArb, extra: fc.constantFrom('x', 1) }, { requiredKeys });
const eventObjectArb = fc
  .oneof(fieldsArb(['seq', 'event', 'payload', 'createdAt']), fieldsArb([]))
  .chain((fields) =>
    fc.constantFrom('as-is', 'usual', 'json', 'proto').map((form) => {
      const { extra, ...usual } = fields;
      if (form === 'usual') return usual;
      if (form === 'json') return JSON.parse(JSON.stringify(fields)) as unknown;
      if (form === 'proto') {
        const rest = JSON.stringify(usual).slice(1);
        return JSON.parse(`{"__proto__":1${rest === '}' ? '' : ','}${rest}`) as unknown;
      }
      return extra === undefined ? usual : fields;
    }),
  );

const plainEventArb = fc.record({ seq: fc.integer({ min: 1 }), event: fc.string({ minLength: 1 }), payload: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })), createdAt: fc.double({ noNaN: true, noDefaultInfinity: true }) });

/** zod's answer, compared as written: keys in order, every value, and the payload the very object that came in. */
function sameAnswer(fast: unknown, zod: unknown): void {
  expect(JSON.stringify(fast)).toBe(JSON.stringify(zod));
  expect(Object.keys(fast as object)).toEqual(Object.keys(zod as object));
}

describe('a journal event checked without zod (the hot path of journal appends)', () => {
  it('answers exactly what the schema answers whenever it answers, and leaves everything else to the schema', () => {
    let answered = 0;
    fc.assert(
      fc.property(eventObjectArb, (value) => {
        const fast = plainJournalEvent(value);
        if (fast === null) return;
        answered += 1;
        const zod = journalEventSchema.safeParse(value);
        expect(zod.success).toBe(true);
        sameAnswer(fast, zod.data);
        expect(fast.payload).toBe(zod.data!.payload);
      }),
      { numRuns: 3000 },
    );
    // The generator reaches the plain case often enough for the property to say something.
    expect(answered).toBeGreaterThan(100);
  });

  it('answers every well formed event of the four fields (the shortcut is taken, not only allowed)', () => {
    fc.assert(
      fc.property(plainEventArb, (event) => {
        expect(plainJournalEvent(JSON.parse(JSON.stringify(event)))).not.toBeNull();
      }),
    );
  });

  it('leaves to the schema what JSON never makes and zod may refuse: symbol keys, functions, an array with its own iterator', () => {
    const plain = { seq: 1, event: 'token', createdAt: 1 };
    const refusedByZod: Record<string | symbol, unknown>[] = [
      { ...plain, payload: { a: 1, [Symbol('s')]: 2 } },
      { ...plain, payload: { constructor: function Made() {} } },
    ];
    for (const value of refusedByZod) {
      expect(journalEventSchema.safeParse(value).success).toBe(false);
      expect(plainJournalEvent(value)).toBeNull();
    }
    const events: unknown[] = [{ bad: 1 }];
    Object.defineProperty(events, Symbol.iterator, { value: function* () { yield { ...plain, payload: {} }; } });
    expect(recordJournalEventsSchema.safeParse({ runId: 'r', events }).success).toBe(false);
    expect(plainRecordJournalEvents({ runId: 'r', events })).toBeNull();
  });

  it('leaves a payload nested past the free-form bound to the schema, which names it', () => {
    const value = { seq: 1, event: 'token', payload: { deep: nested(MAX_FREE_JSON_DEPTH) }, createdAt: 1 };
    expect(plainJournalEvent(value)).toBeNull();
    expect(journalEventSchema.safeParse(value).success).toBe(false);
  });

  it('answers a command of 1..1000 plain events as the command schema does, and nothing else', () => {
    let answered = 0;
    fc.assert(
      fc.property(
        fc.oneof({ weight: 5, arbitrary: fc.constant('run-1') }, fc.constantFrom('', 'bad id', 'x'.repeat(129), 3)),
        fc.oneof(
          { weight: 5, arbitrary: fc.array(fc.oneof({ weight: 8, arbitrary: plainEventArb }, eventObjectArb), { minLength: 1, maxLength: 4 }) },
          fc.constant([]),
          fc.constant('events'),
        ),
        fc.constantFrom(undefined, 'extra'),
        (runId, events, extra) => {
          const value = extra === undefined ? { runId, events } : { runId, events, extra };
          const fast = plainRecordJournalEvents(value);
          if (fast === null) return;
          answered += 1;
          const zod = recordJournalEventsSchema.safeParse(value);
          expect(zod.success).toBe(true);
          sameAnswer(fast, zod.data);
          fast.events.forEach((event, index) => sameAnswer(event, zod.data!.events[index]));
        },
      ),
      { numRuns: 2000 },
    );
    expect(answered).toBeGreaterThan(15);
    const plain = { seq: 1, event: 'token', payload: {}, createdAt: 1 };
    expect(plainRecordJournalEvents({ runId: 'r', events: Array.from({ length: 1000 }, (_, i) => ({ ...plain, seq: i + 1 })) })).not.toBeNull();
    expect(plainRecordJournalEvents({ runId: 'r', events: Array.from({ length: 1001 }, (_, i) => ({ ...plain, seq: i + 1 })) })).toBeNull();
  });
});
