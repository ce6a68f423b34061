import type { SessionState } from '#domain';

/** The inline summary the writer stores with every append (`session_summaries.data`); built by its inline projection and by the audit. */
export function summaryRowOf(state: SessionState, version: number) {
  return {
    sessionId: state.sessionId,
    title: state.title,
    parentSessionId: state.parentSessionId,
    archived: state.archived,
    createdAt: state.createdAt,
    lastActivityAt: state.lastActivityAt,
    pendingTurn: state.pending,
    version,
  };
}
