/**
 * The row shapes of the HTTP contract (camelCase). A row is a plain, readonly JSON value:
 * the projection never mutates one, it builds new rows.
 */
export type Role = 'user' | 'assistant' | 'tool' | 'system';

export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly imageUrl: { readonly url: string } }
  | { readonly type: string; readonly [key: string]: unknown };

export type MessageContent = string | readonly ContentPart[];

/** Display metadata (reference §1.1 "display metadata"): backfilled from dropped duplicates (R13). */
export type DisplayMeta = { readonly [key: string]: unknown };

export interface MessageRow {
  readonly role: Role;
  readonly content?: MessageContent | null;
  readonly timestamp?: number | null;
  readonly id?: string | null;
  readonly attachments?: readonly unknown[];
  readonly toolCalls?: readonly unknown[];
  readonly toolCallId?: string | null;
  readonly toolName?: string | null;
  readonly reasoning?: string | null;
  /** Exact provider bytes; internal, never in the display view. */
  readonly apiContent?: string | null;
  /** Agent-store durable row id. */
  readonly rowId?: number | null;
  readonly partial?: boolean;
  readonly partialToolCalls?: readonly unknown[];
  readonly error?: boolean;
  /** `"interrupted"` on markers. */
  readonly type?: string;
  readonly interruptionCause?: InterruptionCause;
  /** A pending prompt materialised by recovery. */
  readonly recovered?: boolean;
  readonly source?: string | null;
  readonly recoveredFromRunJournal?: boolean;
  readonly recoveredRunId?: string;
  readonly recoveredEventId?: string;
  readonly meta?: DisplayMeta;
}

/** A row read from the agent's own store (state.db). */
export interface StateRow extends MessageRow {
  readonly rowId: number;
  /** `false` = compacted away; default true. */
  readonly active?: boolean;
}

export type InterruptionCause =
  | 'process_restart'
  | 'stream_run_split_brain'
  | 'lost_worker_bookkeeping'
  | 'unknown';

/** One event of a run journal as the worker streamed it; payload keeps the worker's snake_case keys. */
export interface JournalEvent {
  readonly seq: number;
  readonly event: string;
  readonly payload: { readonly [key: string]: unknown };
  readonly createdAt: number;
}

export interface ToolCard {
  readonly name: string;
  readonly preview: string;
  readonly args: { readonly [key: string]: string };
  readonly done: boolean;
  readonly isError: boolean;
  readonly duration: number | null;
  readonly assistantMessageIndex: number | null;
  readonly recoveredFromRunJournal: boolean;
  readonly recoveredRunId: string | null;
}

export type MarkerStatus = 'pending_journal' | 'recovered' | 'no_output' | 'neutral' | 'superseded';

export interface Marker {
  readonly runId: string;
  readonly cause: InterruptionCause;
  readonly status: MarkerStatus;
  readonly content: string;
  readonly timestamp: number;
  readonly messageIndex: number | null;
}

/** The row carries at least one tool call. */
export const hasToolCalls = (row: MessageRow): boolean => Array.isArray(row.toolCalls) && row.toolCalls.length > 0;
