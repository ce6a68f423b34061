import fc from 'fast-check';
import type { JournalEvent } from '../messages/message-row.js';
import { journalEvents } from '../testing/journal-events.builder.js';
import { Transient } from '../session-state/transient.js';
import {
  flattenJournal,
  freshDeliveries,
  insertJournalEvent,
  isRepeatDelivery,
  JOURNAL_CHUNK,
  journalHasSeq,
  journalOfDeliveries,
  journalSize,
  type JournalChunks,
} from './journal-chunks.js';

/**
 * A chunked journal is the sorted, first-delivery-wins list of its deliveries, whatever their order, and a fold
 * never writes a journal it does not own. Sizes go past the chunk size so appends open chunks and late seqs split
 * them (the token path appends with a push, the general path splices).
 */
const ev = journalEvents(0);
const delivery = (seq: number, copy: number): JournalEvent => ev(seq, 'token', { text: `${seq}/${copy}` });

function reference(deliveries: readonly JournalEvent[]): JournalEvent[] {
  const first = new Map<number, JournalEvent>();
  for (const event of deliveries) if (!first.has(event.seq)) first.set(event.seq, event);
  return [...first.values()].sort((a, b) => a.seq - b.seq);
}

const deliveriesArb = fc
  .tuple(fc.integer({ min: 1, max: 3 * JOURNAL_CHUNK }), fc.array(fc.nat(), { maxLength: 6 * JOURNAL_CHUNK }), fc.nat({ max: 4 }))
  .map(([count, swaps, repeats]) => {
    const seqs = Array.from({ length: count }, (_, index) => index + 1);
    // Mostly in order (as tokens arrive), with some late seqs and some repeated deliveries.
    for (const swap of swaps.slice(0, count)) {
      const at = swap % count;
      const to = Math.max(0, at - (swap % 7));
      [seqs[at], seqs[to]] = [seqs[to], seqs[at]];
    }
    const again = seqs.filter((_, index) => index % (repeats + 2) === 0);
    return [...seqs, ...again].map((seq, index) => delivery(seq, index));
  });

describe('a chunked journal', () => {
  it('holds the first delivery of each seq in seq order, in chunks of at most twice the chunk size', () => {
    fc.assert(
      fc.property(deliveriesArb, (deliveries) => {
        const transient = new Transient();
        let chunks: JournalChunks = [];
        for (const event of deliveries) chunks = insertJournalEvent(transient, chunks, event);
        const expected = reference(deliveries);
        expect(flattenJournal(chunks)).toEqual(expected);
        expect(journalSize(chunks)).toBe(expected.length);
        expect(chunks.every((chunk) => chunk.length > 0 && chunk.length < 2 * JOURNAL_CHUNK)).toBe(true);
        expect(expected.every((event) => journalHasSeq(chunks, event.seq))).toBe(true);
      }),
      { numRuns: 300, seed: 9 },
    );
  });

  it('leaves a journal it does not own as it was', () => {
    fc.assert(
      fc.property(deliveriesArb, fc.nat(), (deliveries, cut) => {
        const split = cut % (deliveries.length + 1);
        let before: JournalChunks = [];
        const first = new Transient();
        for (const event of deliveries.slice(0, split)) before = insertJournalEvent(first, before, event);
        const snapshot = JSON.stringify(before);
        let after = before;
        const second = new Transient();
        for (const event of deliveries.slice(split)) after = insertJournalEvent(second, after, event);
        expect(JSON.stringify(before)).toBe(snapshot);
        expect(flattenJournal(after)).toEqual(reference(deliveries));
      }),
      { numRuns: 200, seed: 10 },
    );
  });
});

describe('a delivery of a seq the run recorded (journal idempotency)', () => {
  const journal = journalOfDeliveries([delivery(1, 0), delivery(3, 0)]);

  it('is a repeat, whether the run keeps its journal or, archived, only its seqs', () => {
    expect([1, 2, 3].map((seq) => isRepeatDelivery({ journal, archivedSeqs: null }, seq))).toEqual([true, false, true]);
    expect([1, 2, 3].map((seq) => isRepeatDelivery({ journal: [], archivedSeqs: [[2, 3]] }, seq))).toEqual([false, true, true]);
  });

  it('is left out of a batch, and so is a second delivery of a seq within the batch', () => {
    const batch = [delivery(3, 1), delivery(2, 1), delivery(4, 1), delivery(2, 2)];
    expect(freshDeliveries({ journal, archivedSeqs: null }, batch)).toEqual([delivery(2, 1), delivery(4, 1)]);
    expect(freshDeliveries(undefined, batch)).toEqual(batch.slice(0, 3));
  });

  it('changes nothing in a journal built from raw deliveries: the first delivery of each seq wins', () => {
    fc.assert(
      fc.property(deliveriesArb, (deliveries) => expect(flattenJournal(journalOfDeliveries(deliveries))).toEqual(reference(deliveries))),
      { numRuns: 100, seed: 11 },
    );
  });
});
