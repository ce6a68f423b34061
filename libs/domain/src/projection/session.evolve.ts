import type { JournalEvent } from '../messages/message-row.js';
import type { SessionEvent } from '../events/session.events.js';
import { advanceWatermark, ownRun, touch, type Draft, Transient } from './draft.js';
import { runKey, type SessionState } from './session.state.js';
import { upsertStateRow } from './state-rows.js';
import {
  onTranscriptTruncated,
  onTurnInterrupted,
  onTurnRecoveredFromAgentStore,
  onTurnSettled,
} from './turn-decisions.evolve.js';

/** Folds events onto a state without touching it: parts it writes are copied once, then written in place. */
export function evolveAll(state: SessionState, events: Iterable<SessionEvent>): SessionState {
  const transient = new Transient();
  const draft = transient.own(state);
  for (const event of events) applyEvent(transient, draft, event);
  return draft;
}

/** One step of the fold. Pure: returns a new state. An unknown or out-of-place event changes nothing. */
export const evolve = (state: SessionState, event: SessionEvent): SessionState => evolveAll(state, [event]);

function insertJournalEvent(journal: JournalEvent[], event: JournalEvent): void {
  const last = journal.at(-1);
  if (last === undefined || last.seq < event.seq) {
    journal.push(event);
    return;
  }
  // Late and out-of-order seqs are allowed; the first delivery of a seq wins.
  let index = journal.length - 1;
  while (index >= 0 && journal[index].seq > event.seq) index -= 1;
  if (index >= 0 && journal[index].seq === event.seq) return;
  journal.splice(index + 1, 0, event);
}

function applyEvent(transient: Transient, draft: Draft, event: SessionEvent): void {
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
      const known = Object.hasOwn(draft.runs, runKey(data.runId)) && draft.runs[runKey(data.runId)].submitted;
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
      const { runId, seq, event: name, payload, createdAt } = event.data;
      touch(draft, createdAt);
      const run = ownRun(transient, draft, runId);
      const journal = transient.ownArray(run.journal);
      run.journal = journal;
      insertJournalEvent(journal, { seq, event: name, payload, createdAt });
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
      const run = Object.hasOwn(draft.runs, runKey(event.data.runId)) ? draft.runs[runKey(event.data.runId)] : null;
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
    default:
      return;
  }
}
