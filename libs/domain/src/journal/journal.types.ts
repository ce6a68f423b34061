import type { JournalEvent, MessageRow, ToolCard } from '../messages/message-row.js';

/** Terminal state of one terminal journal event (reference §1.4). */
export type TerminalState =
  | 'completed'
  | 'tool_limit_reached'
  | 'interrupted-by-user'
  | 'interrupted-by-crash'
  | 'errored';

/** Terminal state of a whole journal: its authoritative event's state, else `running` / `unknown`. */
export type JournalState = TerminalState | 'running' | 'unknown';

/** An inclusive range of seqs that never arrived: `[from, to]`. */
export type SeqGap = readonly [from: number, to: number];

export interface JournalSummary {
  readonly runId: string;
  /** De-duplicated by seq (first delivery wins), sorted by seq; events with an invalid seq are left out. */
  readonly events: readonly JournalEvent[];
  /** Highest seq seen, 0 when there is none. */
  readonly lastSeq: number;
  readonly gaps: readonly SeqGap[];
  /** Any terminal event was seen. */
  readonly terminal: boolean;
  readonly terminalState: JournalState;
  /** The latest non-`stream_end` terminal event, else the last `stream_end`, else null. */
  readonly authoritativeEvent: JournalEvent | null;
  /** §3.7 "journal has visible output". */
  readonly hasVisibleOutput: boolean;
}

/** The turn a recovery acts on (reference: the sidecar's pending_* fields). */
export interface PendingTurn {
  readonly text: string;
  /** Epoch seconds; the checkpoint timestamp is its integer part. */
  readonly submittedAt: number;
  readonly attachments?: readonly unknown[];
  /** Missing or null means `webui`. */
  readonly source?: string | null;
}

export interface MaterialiseJournalInput {
  readonly runId: string;
  /** Raw deliveries: any order, duplicates allowed. */
  readonly events: readonly JournalEvent[];
  /** Current display rows. */
  readonly rows: readonly MessageRow[];
  /** Current context rows; empty means "derive from rows" and is seeded on the first append. */
  readonly context: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
  /** Re-run mode: reuse rows and cards that are already present instead of adding copies. */
  readonly dedupeExisting: boolean;
  readonly pending?: PendingTurn | null;
  /** Stands in for the reference's `int(now)` when an event carries no usable time. */
  readonly fallbackTimestamp: number;
}

export interface MaterialiseJournalResult {
  readonly rows: readonly MessageRow[];
  readonly context: readonly MessageRow[];
  readonly toolCards: readonly ToolCard[];
  /** A row or card was added, or reasoning was attached to an existing row. */
  readonly recovered: boolean;
}

export interface GatewayErrorInput {
  /** The session id of the stream the journal lives in. */
  readonly sessionId: string;
  readonly runId: string;
  /** Raw deliveries: any order, duplicates allowed. */
  readonly events: readonly JournalEvent[];
  readonly rows: readonly MessageRow[];
  readonly pending?: PendingTurn | null;
}

export interface GatewayErrorResult {
  readonly rows: readonly MessageRow[];
  /** A validated gateway terminal error ends the turn (now or by an earlier pass): no marker. */
  readonly recovered: boolean;
  /** `${runId}:${seq}` of the apperror when recovered, else null. */
  readonly eventId: string | null;
}
