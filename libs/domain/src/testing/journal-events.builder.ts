import type { SessionEvent } from '../events/session.events.js';
import type { JournalEvent } from '../messages/message-row.js';
import { materialiseJournal } from '../journal/journal-output.materialiser.js';
import type { MaterialiseJournalInput } from '../journal/journal.types.js';

/**
 * The one builder of run-journal events for the specs (session.fixtures.ts re-exports the stream events).
 *
 * A run's journal as the materialisers read it: `const ev = journalEvents(1000)` answers
 * `ev(seq, event, payload?)`, an event whose createdAt is `1000 + seq`, so each spec picks the clock its
 * timestamps read from and a row's time names the seq it came from.
 */
export const journalEvents =
  (clock: number) =>
  (seq: number, event: string, payload: JournalEvent['payload'] = {}): JournalEvent => ({ seq, event, payload, createdAt: clock + seq });

/** The stream event that records one journal event of run `runId`. */
export const journal = (runId: string, seq: number, event: string, payload: JournalEvent['payload'], createdAt: number): SessionEvent => ({
  type: 'JournalEventRecorded',
  data: { runId, seq, event, payload, createdAt },
});

/** `token` stream events for `texts`, from `fromSeq` on, a hundredth of a second apart from `createdAt`. */
export const tokens = (runId: string, fromSeq: number, texts: readonly string[], createdAt: number): SessionEvent[] =>
  texts.map((text, index) => journal(runId, fromSeq + index, 'token', { text }, createdAt + index / 100));

/**
 * `materialiseJournal` of run `runId` with nothing materialised before (no rows, context or tool cards, no
 * dedupe) and `fallbackTimestamp`; a spec overrides any of it per call.
 */
export const journalMaterialiser =
  (runId: string, fallbackTimestamp: number) =>
  (events: readonly JournalEvent[], input: Partial<MaterialiseJournalInput> = {}) =>
    materialiseJournal({ runId, events, rows: [], context: [], toolCards: [], dedupeExisting: false, fallbackTimestamp, ...input });
