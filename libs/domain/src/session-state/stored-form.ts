import type { SessionEvent } from '../events/session.events.js';
import { insertJournalEvent, journalEventOf, type JournalChunks } from '../journal/journal-chunks.js';
import { findRun, type RunTable } from './run-table.js';
import type { SessionState, StoredRun } from './session.state.js';
import { Transient } from './transient.js';

/**
 * The stored form of a fold state (a snapshot) leaves the journals that are still live in the stream: the
 * journal of a run that is not archived (the pending turn streaming its tokens, an interrupted run whose rows
 * derive from its journal) is the list of that run's `JournalEventRecorded` events, in stream order, between the
 * versions of its `journalSpan`, so storing it again in every snapshot only repeats the events. A session
 * streaming one long turn would otherwise write its whole journal again with every snapshot, a cost the
 * ingest's throughput and PostgreSQL's CPU show (bench/README.md).
 *
 * The rule relies on two facts of the fold (session.evolve.ts): a run's `journalSpan` is set by its first
 * journal event and its journal is only ever emptied when it is archived (`archivedSeqs`), never un-archived.
 * So a run with a span and no archive holds exactly its journal events of that span, inserted in stream
 * order by `insertJournalEvent`, and `journalFromEvents` rebuilds the same chunks from the same events.
 */

/** A run whose journal the stored form leaves in the stream: journal events folded, not archived. */
export const journalInStream = (run: StoredRun): boolean => run.archivedSeqs === null && run.journalSpan !== null;

/** The stream versions a stored state's journals are read back from: one span per such run. */
export function journalSpansOf(state: SessionState): { runId: string; from: number; to: number }[] {
  const spans: { runId: string; from: number; to: number }[] = [];
  for (const bucket of state.runs) {
    for (const run of bucket) if (journalInStream(run)) spans.push({ runId: run.runId, from: run.journalSpan![0], to: run.journalSpan![1] });
  }
  return spans;
}

function mapRuns(runs: RunTable<StoredRun>, change: (run: StoredRun) => StoredRun): RunTable<StoredRun> {
  let changed = false;
  const table = runs.map((bucket) => {
    if (!bucket.some(journalInStream)) return bucket;
    changed = true;
    return bucket.map((run) => (journalInStream(run) ? change(run) : run));
  });
  return changed ? table : runs;
}

/** The state as a snapshot stores it: every journal that lives in the stream left out (see above). */
export function storedFormOf(state: SessionState): SessionState {
  const runs = mapRuns(state.runs, (run) => ({ ...run, journal: [] }));
  return runs === state.runs ? state : { ...state, runs };
}

/** A stored state with its journals back, each from `journalOf(runId)` (the stream's events, or a replay). */
export function withJournals(stored: SessionState, journalOf: (runId: string) => JournalChunks): SessionState {
  const runs = mapRuns(stored.runs, (run) => ({ ...run, journal: journalOf(run.runId) }));
  return runs === stored.runs ? stored : { ...stored, runs };
}

/** The journal of `runId` as the fold builds it, from the stream's events in version order (others skipped). */
export function journalFromEvents(runId: string, events: Iterable<SessionEvent>): JournalChunks {
  const transient = new Transient();
  let chunks: JournalChunks = [];
  for (const event of events) {
    if (event.type !== 'JournalEventRecorded' || event.data?.runId !== runId) continue;
    chunks = insertJournalEvent(transient, chunks, journalEventOf(event.data));
  }
  return chunks;
}

/** A stored state with the journals of `source`, a replayed state at the same version (an audit's cold view). */
export const withJournalsOf = (stored: SessionState, source: SessionState): SessionState =>
  withJournals(stored, (runId) => findRun(source.runs, runId)?.journal ?? []);

/**
 * A stored state with its journals rebuilt from the stream's events that cover every run's journal span
 * (`journalSpansOf`), in version order; events outside a run's span are not that run's journal.
 */
export function withJournalsFromEvents(stored: SessionState, events: readonly (SessionEvent & { readonly version: number })[]): SessionState {
  const spans = new Map(journalSpansOf(stored).map((span) => [span.runId, span]));
  if (spans.size === 0) return stored;
  // One pass over the events, each run's journal built as `journalFromEvents` builds it (the same insertions in
  // the same order), however many runs hold a live journal.
  const transient = new Transient();
  const journals = new Map<string, JournalChunks>();
  for (const event of events) {
    if (event.type !== 'JournalEventRecorded') continue;
    const span = spans.get(event.data.runId);
    if (span === undefined || event.version < span.from || event.version > span.to) continue;
    journals.set(span.runId, insertJournalEvent(transient, journals.get(span.runId) ?? [], journalEventOf(event.data)));
  }
  return withJournals(stored, (runId) => journals.get(runId) ?? []);
}
