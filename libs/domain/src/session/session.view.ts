import type { Marker, MessageRow, ToolCard } from '../messages/message-row.js';
import type { PendingTurnView } from '../session-state/session.state.js';

/** Session status for list filters, in precedence order (http-api "GET /v1/sessions?status="). */
export const SESSION_STATUSES = ['erased', 'archived', 'pending', 'recovering', 'interrupted', 'active'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export interface MarkerCounts {
  /** Markers still waiting for their journal (`pending_journal`). */
  readonly pending: number;
  readonly recovered: number;
  readonly noOutput: number;
  readonly neutral: number;
}

/** What the contract's SessionSummary takes from the events (the shell adds `version`). */
export interface SessionSummaryView {
  readonly sessionId: string | null;
  readonly title: string | null;
  readonly parentSessionId: string | null;
  readonly archived: boolean;
  readonly createdAt: number | null;
  readonly lastActivityAt: number | null;
  readonly messageCount: number;
  readonly pendingTurn: PendingTurnView | null;
  readonly markers: MarkerCounts;
  readonly status: SessionStatus;
}

export interface SessionView {
  /** What the user sees: never carries `apiContent`. */
  readonly display: readonly MessageRow[];
  /** What the model gets next turn: keeps `apiContent`, drops display-only rows. */
  readonly context: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
  readonly markers: readonly Marker[];
  readonly pendingTurn: PendingTurnView | null;
  readonly summary: SessionSummaryView;
}

export type TranscriptViewName = 'display' | 'context';

export interface RenderedTranscript {
  readonly messages: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
  /** The transcript hash (transcript-hash.ts): chained over the rows, then the tool cards. */
  readonly hash: string;
  /** The chain's link after each row (`links[i]` covers rows 0..i): what a later transcript reuses. */
  readonly links: readonly string[];
}
