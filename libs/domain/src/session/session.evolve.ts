import type { SessionEvent } from '../events/session.events.js';
import { carryProof } from '../fast-path/fix-point.proof.js';
import { advanceWatermark, ownRun, touch, type Draft } from '../session-state/draft.js';
import { Transient } from '../session-state/transient.js';
import { addSeqToRanges, insertJournalEvent, journalEventOf } from '../journal/journal-chunks.js';
import { initialSessionState, storedRunOf, type SessionState } from '../session-state/session.state.js';
import { upsertStateRow } from '../session-state/state-rows.js';
import {
  onTranscriptTruncated,
  onTurnInterrupted,
  onTurnRecoveredFromAgentStore,
  onTurnSettled,
} from './turn-decisions.evolve.js';

/** Internal knobs of the fold; the default is what production uses. */
export interface FoldOptions {
  /**
   * The reference path, for tests: every commit runs the full merge to its fix point instead of skipping it when
   * `fastFixPoint` proves its result (fast-path/fix-point.ts). Both paths give the same state.
   */
  readonly alwaysMerge?: boolean;
}

/** Folds events onto a state without touching it: parts it writes are copied once, then written in place. */
export function evolveAll(state: SessionState, events: Iterable<SessionEvent>, options: FoldOptions = {}): SessionState {
  const transient = new Transient(options.alwaysMerge ?? false);
  const draft = transient.own(state);
  carryProof(state, draft);
  for (const event of events) applyEvent(transient, draft, event);
  return draft;
}

/** One step of the fold. Pure: returns a new state. An unknown or out-of-place event changes nothing. */
export const evolve = (state: SessionState, event: SessionEvent): SessionState => evolveAll(state, [event]);

function applyEvent(transient: Transient, draft: Draft, event: SessionEvent): void {
  // Every event takes a version, one that changes nothing as well.
  draft.version += 1;
  if (typeof event !== 'object' || event === null || typeof event.data !== 'object' || event.data === null) return;
  switch (event.type) {
    case 'SessionStarted': {
      const { data } = event;
      touch(draft, data.createdAt);
      if (draft.sessionId !== null) return;
      draft.sessionId = data.sessionId;
      draft.title = data.title ?? null;
      draft.parentSessionId = data.parentSessionId ?? null;
      draft.createdAt = data.createdAt;
      return;
    }
    case 'MessagesRecorded': {
      const committed = transient.ownArray(draft.committed);
      draft.committed = committed;
      for (const row of event.data.rows) {
        committed.push(row);
        touch(draft, row.timestamp);
        if (row.role === 'user') draft.watermark = advanceWatermark(draft.watermark, row.timestamp);
      }
      return;
    }
    case 'UserMessageSubmitted': {
      const { data } = event;
      touch(draft, data.submittedAt);
      const known = storedRunOf(draft, data.runId)?.submitted === true;
      // One pending turn at a time (the decider refuses a second); a repeated run id is the same turn.
      if (known || draft.pending !== null) return;
      draft.pending = {
        runId: data.runId,
        text: data.text,
        attachments: data.attachments ?? [],
        source: data.source ?? null,
        submittedAt: data.submittedAt,
      };
      ownRun(transient, draft, data.runId).submitted = true;
      draft.latestRunId = data.runId;
      return;
    }
    case 'JournalEventRecorded': {
      const { runId, seq, createdAt } = event.data;
      touch(draft, createdAt);
      const run = ownRun(transient, draft, runId);
      run.journalSpan = [run.journalSpan?.[0] ?? draft.version, draft.version];
      // A settled run's journal is archived (session.state.ts `archivedSeqs`): a late event adds its seq only.
      if (run.archivedSeqs !== null) run.archivedSeqs = addSeqToRanges(run.archivedSeqs, seq);
      else run.journal = insertJournalEvent(transient, run.journal, journalEventOf(event.data));
      return;
    }
    case 'StateRowsObserved': {
      touch(draft, event.data.observedAt);
      const rows = transient.ownArray(draft.stateRows);
      const seen = transient.ownArray(draft.stateRowSeen);
      draft.stateRows = rows;
      draft.stateRowSeen = seen;
      draft.observations += 1;
      for (const row of event.data.rows) upsertStateRow(rows, seen, row, draft.observations);
      return;
    }
    case 'SessionCompressed':
      touch(draft, event.data.at);
      draft.archived = true;
      draft.childSessionId = event.data.childSessionId;
      return;
    case 'JournalRecoveryAbandoned': {
      touch(draft, event.data.at);
      const run = storedRunOf(draft, event.data.runId);
      if (run?.interruption == null || run.interruption.abandoned) return;
      const owned = ownRun(transient, draft, event.data.runId);
      owned.interruption = { ...run.interruption, abandoned: true };
      return;
    }
    case 'TurnSettled':
      return onTurnSettled(transient, draft, event.data);
    case 'TurnInterrupted':
      return onTurnInterrupted(transient, draft, event.data);
    case 'TurnRecoveredFromAgentStore':
      return onTurnRecoveredFromAgentStore(transient, draft, event.data);
    case 'TranscriptTruncated':
      return onTranscriptTruncated(transient, draft, event.data);
    case 'SessionErased': {
      if (draft.erased !== null) return;
      const { at, reason, requestedBy, dataKeyId, droppedContent, lastActivityAt } = event.data;
      // A fold without the content (the key destroyed) reaches the last activity the content gave (the event says it).
      touch(draft, lastActivityAt);
      touch(draft, at);
      // Everything the content made is dropped with it: the state keeps the session's identity, times and
      // lineage only. A fold of the events as sealed content reads them after the erasure (content empty) reaches
      // the same state as the fold that held the content, so the read models written either way agree.
      const kept = { version: draft.version, sessionId: draft.sessionId, parentSessionId: draft.parentSessionId, createdAt: draft.createdAt };
      const lineage = { archived: draft.archived, childSessionId: draft.childSessionId, lastActivityAt: draft.lastActivityAt };
      const erased = { at, reason, requestedBy, dataKeyId, ...(droppedContent === undefined ? {} : { droppedContent }) };
      Object.assign(draft, initialSessionState(), kept, lineage, { erased });
      return;
    }
    default:
      return;
  }
}
