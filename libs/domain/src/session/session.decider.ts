import { canonicalJson } from '../canonical/canonical-json.js';
import type { StateRow } from '../messages/message-row.js';
import { plainRecordJournalEvents } from '../events/journal-event.fast-parse.js';
import { freshDeliveries } from '../journal/journal-chunks.js';
import { storedRunOf, type SessionState } from '../session-state/session.state.js';
import { findStateRow, storedStateRow } from '../session-state/state-rows.js';
import { DomainError } from '../errors/domain.error.js';
import { requireOpenSession, requireSession, validated } from './decider.guards.js';
import { appendEvents, DUPLICATE, sessionCommandSchemas as schemas, type Decision, type SessionCommand } from './session.commands.js';
import { committedDisplayLength } from './decider.guards.js';
import { decideTurnCommand } from './turn.decider.js';

/**
 * `decide(command, state)`: the events a command appends to the session stream, a duplicate (a retry found by
 * its natural key), or a thrown DomainError. Pure; the state is the fold of the stream the decision is made on.
 */
export function decide(command: SessionCommand, state: SessionState): Decision {
  if (state.erased !== null) {
    // Erasing again answers as the first erasure did; anything else is refused: an erased session takes nothing.
    if (command.type === 'EraseSession') return DUPLICATE;
    throw new DomainError('SESSION_ERASED', `the session was erased (${state.erased.reason})`);
  }
  switch (command.type) {
    case 'StartSession': {
      const data = validated(schemas.StartSession, command.data);
      if (state.sessionId === null) return appendEvents({ type: 'SessionStarted', data });
      const same =
        state.sessionId === data.sessionId && state.title === data.title && state.parentSessionId === data.parentSessionId;
      if (same) return DUPLICATE;
      throw new DomainError('SESSION_ALREADY_EXISTS', `session ${state.sessionId} exists with other attributes`);
    }
    case 'RecordMessages': {
      const data = validated(schemas.RecordMessages, command.data);
      requireSession(state);
      if (data.rows.length === 0) return appendEvents();
      return appendEvents({ type: 'MessagesRecorded', data });
    }
    case 'RecordJournalEvents': {
      // The plain case without zod (the same answer, journal-event.fast-parse.ts); anything else through the schema.
      const data = plainRecordJournalEvents(command.data) ?? validated(schemas.RecordJournalEvents, command.data);
      requireSession(state);
      // A binary search per event in the stored chunks: a batch costs the same on a run with 10,000 tokens.
      const fresh = freshDeliveries(storedRunOf(state, data.runId), data.events);
      if (fresh.length === 0) return DUPLICATE;
      return appendEvents(...fresh.map((event) => ({ type: 'JournalEventRecorded' as const, data: { runId: data.runId, ...event } })));
    }
    case 'ObserveStateRows': {
      const data = validated(schemas.ObserveStateRows, command.data);
      requireSession(state);
      const changed = changedStateRows(state.stateRows, data.rows);
      if (changed.length === 0) return DUPLICATE;
      return appendEvents({ type: 'StateRowsObserved', data: { rows: changed, observedAt: data.observedAt } });
    }
    case 'TruncateTranscript': {
      const data = validated(schemas.TruncateTranscript, command.data);
      requireOpenSession(state);
      const length = committedDisplayLength(state);
      if (data.keepCount > length) {
        throw new DomainError('KEEP_COUNT_OUT_OF_RANGE', `keepCount ${data.keepCount} exceeds the ${length} committed rows`, [
          { path: 'keepCount', message: `must be at most ${length}` },
        ]);
      }
      return appendEvents({ type: 'TranscriptTruncated', data });
    }
    case 'CompressSession': {
      const data = validated(schemas.CompressSession, command.data);
      const sessionId = requireSession(state);
      if (state.archived && state.childSessionId === data.childSessionId) return DUPLICATE;
      requireOpenSession(state);
      if (data.childSessionId === sessionId) {
        throw new DomainError('VALIDATION', 'a session cannot be its own child', [
          { path: 'childSessionId', message: 'must differ from the session id' },
        ]);
      }
      return appendEvents({ type: 'SessionCompressed', data });
    }
    case 'EraseSession': {
      const data = validated(schemas.EraseSession, command.data);
      requireSession(state);
      // The last activity as folded with the content, which a replay after the erasure no longer has.
      return appendEvents({ type: 'SessionErased', data: { ...data, lastActivityAt: state.lastActivityAt } });
    }
    default:
      return decideTurnCommand(command, state);
  }
}

/**
 * Natural key `rowId`: an observation identical to the latest one of its row is a repeat. Within one batch the
 * later observation of a row id wins, as it would when folded.
 */
function changedStateRows(stored: readonly StateRow[], observed: readonly StateRow[]): StateRow[] {
  const latest = new Map<number, StateRow>();
  for (const row of observed) {
    latest.delete(row.rowId);
    latest.set(row.rowId, row);
  }
  return [...latest.values()].filter((row) => {
    const index = findStateRow(stored, row.rowId);
    return index < 0 || canonicalJson(stored[index]) !== canonicalJson(storedStateRow(row));
  });
}
