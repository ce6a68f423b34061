import type { Marker } from '../messages/message-row.js';
import { storedRunOf, type SessionState } from '../session-state/session.state.js';
import type { MarkerCounts, SessionStatus, SessionSummaryView } from './session.view.js';

function countMarkers(markers: readonly Marker[]): MarkerCounts {
  const count = (status: Marker['status']): number => markers.filter((marker) => marker.status === status).length;
  return {
    pending: count('pending_journal'),
    recovered: count('recovered'),
    noOutput: count('no_output'),
    neutral: count('neutral'),
  };
}

/**
 * erased (its content destroyed) › archived (a compressed parent) › pending (a turn submitted, not settled or decided) › recovering (a marker
 * waits for its journal) › interrupted (the latest turn ended in a marker) › active.
 */
function statusOf(state: SessionState, markers: readonly Marker[], counts: MarkerCounts): SessionStatus {
  if (state.erased !== null) return 'erased';
  if (state.archived) return 'archived';
  if (state.pending !== null) return 'pending';
  if (counts.pending > 0) return 'recovering';
  const latest = state.latestRunId;
  const latestMarker = latest === null ? undefined : markers.find((marker) => marker.runId === latest);
  if (latestMarker !== undefined && latestMarker.status !== 'superseded' && storedRunOf(state, latest ?? '')?.outcome === 'interrupted') {
    return 'interrupted';
  }
  return 'active';
}

export function summarize(state: SessionState, messageCount: number, markers: readonly Marker[]): SessionSummaryView {
  const counts = countMarkers(markers);
  return {
    sessionId: state.sessionId,
    title: state.title,
    parentSessionId: state.parentSessionId,
    archived: state.archived,
    createdAt: state.createdAt,
    lastActivityAt: state.lastActivityAt,
    messageCount,
    pendingTurn: state.pending,
    markers: counts,
    status: statusOf(state, markers, counts),
  };
}
