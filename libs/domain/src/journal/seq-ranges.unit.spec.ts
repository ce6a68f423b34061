import fc from 'fast-check';
import type { JournalEvent } from '../messages/message-row.js';
import { addSeqToRanges, rangesHaveSeq, rangesSize, seqRangesOf, type SeqRanges } from './journal-chunks.js';

/** What is kept of an archived journal: its seqs as sorted, apart, inclusive ranges, whatever order they came in. */
const asRanges = (seqs: Iterable<number>): SeqRanges => {
  const sorted = [...new Set(seqs)].sort((a, b) => a - b);
  return seqRangesOf([sorted.map((seq): JournalEvent => ({ seq, event: 'token', payload: {}, createdAt: 0 }))]);
};

describe('seq ranges', () => {
  it('cover each seq once, in order, with no two ranges touching', () => {
    expect(asRanges([1, 2, 3, 5, 7, 8])).toEqual([
      [1, 3],
      [5, 5],
      [7, 8],
    ]);
    expect(asRanges([])).toEqual([]);
  });

  it('grow by one seq at a time to the ranges of the whole set, in any order, repeats included', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 80 }), (seqs) => {
        let ranges: SeqRanges = [];
        for (const seq of seqs) {
          const before = ranges;
          ranges = addSeqToRanges(ranges, seq);
          if (rangesHaveSeq(before, seq)) expect(ranges).toBe(before);
        }
        const expected = asRanges(seqs);
        expect(ranges).toEqual(expected);
        expect(rangesSize(ranges)).toBe(new Set(seqs).size);
        for (let seq = 0; seq <= 61; seq += 1) expect(rangesHaveSeq(ranges, seq)).toBe(seqs.includes(seq));
      }),
      { numRuns: 300 },
    );
  });

  it('never write the ranges they were given', () => {
    const given: SeqRanges = Object.freeze([Object.freeze([1, 2] as const), Object.freeze([4, 4] as const)]);
    expect(addSeqToRanges(given, 3)).toEqual([[1, 4]]);
    expect(given).toEqual([
      [1, 2],
      [4, 4],
    ]);
  });
});
