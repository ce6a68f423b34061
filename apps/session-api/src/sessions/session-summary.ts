import type { SessionView } from '#domain';

/** The contract's SessionSummary: the projection's summary plus the stream version it was folded at. */
export function toSessionSummary(sessionId: string, version: number, view: SessionView) {
  const s = view.summary;
  return {
    sessionId,
    title: s.title,
    parentSessionId: s.parentSessionId,
    archived: s.archived,
    version,
    createdAt: s.createdAt,
    lastActivityAt: s.lastActivityAt,
    messageCount: s.messageCount,
    status: s.status,
    pendingTurn: s.pendingTurn
      ? {
          runId: s.pendingTurn.runId,
          text: s.pendingTurn.text,
          attachments: s.pendingTurn.attachments,
          submittedAt: s.pendingTurn.submittedAt,
          source: s.pendingTurn.source,
        }
      : null,
    markers: s.markers,
  };
}
