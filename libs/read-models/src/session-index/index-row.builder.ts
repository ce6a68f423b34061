import type { MarkerCounts, SessionView } from '#domain';

/** A `session_index` row (columns in camelCase, `session_id` aside): written by the projector and the rebuild, read back by the audit. */
export interface StoredIndexRow {
  readonly version: number;
  readonly title: string | null;
  readonly parentSessionId: string | null;
  readonly status: string;
  readonly archived: boolean;
  readonly createdAt: number | null;
  readonly lastActivityAt: number | null;
  readonly messageCount: number;
  readonly pendingTurn: IndexPendingTurn | null;
  readonly markers: MarkerCounts;
}

/** The contract's `pendingTurn` (plus `source`, as `GET /v1/sessions/{id}` answers it). */
export interface IndexPendingTurn {
  readonly runId: string;
  readonly text: string;
  readonly attachments: readonly unknown[];
  readonly submittedAt: number;
  readonly source: string | null;
}

/**
 * The `session_index` row for a view folded at `version`: the one builder of the projector, the rebuild and the
 * audit (which compares the stored row with this built from a replay).
 */
export function indexRowOf(view: SessionView, version: number): StoredIndexRow {
  const s = view.summary;
  const p = s.pendingTurn;
  return {
    version,
    title: s.title,
    parentSessionId: s.parentSessionId,
    status: s.status,
    archived: s.archived,
    createdAt: s.createdAt,
    lastActivityAt: s.lastActivityAt,
    messageCount: s.messageCount,
    pendingTurn: p
      ? { runId: p.runId, text: p.text, attachments: p.attachments, submittedAt: p.submittedAt, source: p.source }
      : null,
    markers: {
      pending: s.markers.pending,
      recovered: s.markers.recovered,
      noOutput: s.markers.noOutput,
      neutral: s.markers.neutral,
    },
  };
}
