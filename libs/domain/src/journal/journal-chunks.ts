import type { JournalEvent } from '../messages/message-row.js';

/**
 * A run's journal as it is stored: events sorted by seq (the first delivery of a seq wins), in chunks of at
 * most 2 × JOURNAL_CHUNK events. Appending a token copies the list of chunks and the last chunk, never the
 * whole journal, so the 10,000th token of a run costs what the 10th does. Plain JSON, like the rest of the state.
 */
export type JournalChunks = readonly (readonly JournalEvent[])[];

export const JOURNAL_CHUNK = 128;

/**
 * The copy-on-write owner of the fold that writes the journal (session-state/draft.ts `Transient`): what it made
 * it may write in place, anything else it copies first.
 */
export interface ChunkOwner {
  adopt<T extends object>(value: T): T;
  ownArray<T>(value: readonly T[]): T[];
}

/** The journal event a `JournalEventRecorded` records (its data without the run id): what the journal stores. */
export const journalEventOf = ({ seq, event, payload, createdAt }: JournalEvent): JournalEvent => ({ seq, event, payload, createdAt });

export const journalSize = (chunks: JournalChunks): number => chunks.reduce((total, chunk) => total + chunk.length, 0);

/** The journal as one array, in seq order. */
export function flattenJournal(chunks: JournalChunks): readonly JournalEvent[] {
  if (chunks.length === 0) return [];
  // `concat` copies packed arrays wholesale; `flat()` walks them element by element (V8), ~10× slower here.
  return chunks.length === 1 ? chunks[0] : ([] as JournalEvent[]).concat(...chunks);
}

/** Index of the chunk `seq` belongs in: the first whose last seq is ≥ seq, else the last one. */
function chunkFor(chunks: JournalChunks, seq: number): number {
  let low = 0;
  let high = chunks.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const chunk = chunks[middle];
    if (chunk[chunk.length - 1].seq >= seq) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Index of `seq` in a sorted chunk, or `-(insertion point) - 1`. */
function indexIn(chunk: readonly JournalEvent[], seq: number): number {
  let low = 0;
  let high = chunk.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = chunk[middle].seq;
    if (found === seq) return middle;
    if (found < seq) low = middle + 1;
    else high = middle - 1;
  }
  return -low - 1;
}

export function journalHasSeq(chunks: JournalChunks, seq: number): boolean {
  if (chunks.length === 0) return false;
  return indexIn(chunks[chunkFor(chunks, seq)], seq) >= 0;
}

/** What a run keeps of the seqs it recorded: its journal, or once it is archived the seqs alone (`archivedSeqs`). */
export interface RecordedSeqs {
  readonly journal: JournalChunks;
  readonly archivedSeqs: SeqRanges | null;
}

/**
 * Journal idempotency, the one rule: a run keeps the FIRST delivery of each seq, so a delivery of a seq it has
 * recorded is a repeat and changes nothing. `insertJournalEvent` drops a repeat, and every journal is built by it
 * (the fold, a journal read back from the stream, a summary of raw deliveries); the decider records only the
 * deliveries of a batch that are not repeats (`freshDeliveries`), and answers a batch of repeats as a duplicate.
 */
export function isRepeatDelivery(recorded: RecordedSeqs, seq: number): boolean {
  return recorded.archivedSeqs !== null ? rangesHaveSeq(recorded.archivedSeqs, seq) : journalHasSeq(recorded.journal, seq);
}

/** The deliveries of a batch that are not repeats, the batch taken in order (a seq twice in it: the first). */
export function freshDeliveries<Delivery extends { readonly seq: number }>(
  recorded: RecordedSeqs | undefined,
  batch: readonly Delivery[],
): Delivery[] {
  const inBatch = new Set<number>();
  return batch.filter(({ seq }) => {
    if ((recorded !== undefined && isRepeatDelivery(recorded, seq)) || inBatch.has(seq)) return false;
    inBatch.add(seq);
    return true;
  });
}

/**
 * Adds one event in seq order (a repeat is dropped, `isRepeatDelivery`) and returns the journal to store: `chunks`
 * itself, written in place, when this fold owns it, else a copy of the chunk list and of the one chunk that changes.
 */
export function insertJournalEvent(transient: ChunkOwner, chunks: JournalChunks, event: JournalEvent): JournalChunks {
  const last = chunks.at(-1);
  if (last === undefined) return transient.adopt([transient.adopt([event])]);
  const tail = last[last.length - 1];
  if (tail.seq < event.seq) {
    // The usual case, a token after the last one: a push (what the general path's splice at the end does).
    const owned = transient.ownArray(chunks);
    if (last.length >= JOURNAL_CHUNK) owned.push(transient.adopt([event]));
    else {
      const chunk = transient.ownArray(last);
      chunk.push(event);
      owned[owned.length - 1] = chunk;
    }
    return owned;
  }
  if (isRepeatDelivery({ journal: chunks, archivedSeqs: null }, event.seq)) return chunks;
  const at = chunkFor(chunks, event.seq);
  const index = indexIn(chunks[at], event.seq);
  const owned = transient.ownArray(chunks);
  const chunk = transient.ownArray(owned[at]);
  chunk.splice(-index - 1, 0, event);
  if (chunk.length >= 2 * JOURNAL_CHUNK) owned.splice(at, 1, transient.adopt(chunk.slice(0, JOURNAL_CHUNK)), transient.adopt(chunk.slice(JOURNAL_CHUNK)));
  else owned[at] = chunk;
  return owned;
}

/** The owner of a journal built here from nothing: every array in it was made by the build, so is written in place. */
const BUILDER: ChunkOwner = { adopt: (value) => value, ownArray: <T>(value: readonly T[]): T[] => value as T[] };

/** The journal that raw deliveries (any order, repeats allowed) make, built as the fold builds one. */
export function journalOfDeliveries(deliveries: Iterable<JournalEvent>): JournalChunks {
  let chunks: JournalChunks = [];
  for (const event of deliveries) chunks = insertJournalEvent(BUILDER, chunks, event);
  return chunks;
}

/** Inclusive `[from, to]` ranges of seqs, sorted and apart (no two touch): what is left of a settled run's journal. */
export type SeqRanges = readonly (readonly [from: number, to: number])[];

/** The seqs of a journal as ranges (a journal is kept sorted by seq, without repeats). */
export function seqRangesOf(chunks: JournalChunks): SeqRanges {
  const ranges: [number, number][] = [];
  for (const chunk of chunks) {
    for (const { seq } of chunk) {
      const last = ranges.at(-1);
      if (last !== undefined && seq === last[1] + 1) last[1] = seq;
      else ranges.push([seq, seq]);
    }
  }
  return ranges;
}

/** Index of the range holding `seq`, or `-(insertion point) - 1`. */
function rangeIndex(ranges: SeqRanges, seq: number): number {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const [from, to] = ranges[middle];
    if (seq < from) high = middle - 1;
    else if (seq > to) low = middle + 1;
    else return middle;
  }
  return -low - 1;
}

export const rangesHaveSeq = (ranges: SeqRanges, seq: number): boolean => rangeIndex(ranges, seq) >= 0;

/** How many seqs the ranges hold. */
export const rangesSize = (ranges: SeqRanges): number => ranges.reduce((total, [from, to]) => total + to - from + 1, 0);

/** The ranges with `seq` added (a copy; `ranges` itself when it already holds it). */
export function addSeqToRanges(ranges: SeqRanges, seq: number): SeqRanges {
  const found = rangeIndex(ranges, seq);
  if (found >= 0) return ranges;
  const at = -found - 1;
  const before = ranges[at - 1];
  const after = ranges[at];
  const joinsBefore = before !== undefined && before[1] + 1 === seq;
  const joinsAfter = after !== undefined && after[0] - 1 === seq;
  const next = ranges.slice();
  if (joinsBefore && joinsAfter) next.splice(at - 1, 2, [before[0], after[1]]);
  else if (joinsBefore) next[at - 1] = [before[0], seq];
  else if (joinsAfter) next[at] = [seq, after[1]];
  else next.splice(at, 0, [seq, seq]);
  return next;
}
