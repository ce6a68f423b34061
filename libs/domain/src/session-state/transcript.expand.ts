import { projectRowForContext } from '../context/context-rows.projection.js';
import type { MessageRow, ToolCard } from '../messages/message-row.js';
import type { TurnPrompt } from './prompt-mirror.js';
import { deriveRunSegment, type DerivedMarker } from './run-segment.js';
import { isRunSlot, runOf, type PendingTurnView, type SessionState } from './session.state.js';

/** Where an expanded row came from: the index of its committed entry, or PENDING_ORIGIN for the pending prompt. */
export const PENDING_ORIGIN = -1;

/** S with its run slots derived into rows: the sidecar list the merge sees. */
export interface Expansion {
  readonly rows: readonly MessageRow[];
  readonly origins: readonly number[];
  /** The context derived alongside (empty when not asked for). */
  readonly context: readonly MessageRow[];
  /** Journal tool cards; `assistantMessageIndex` points into `rows`. */
  readonly toolCards: readonly ToolCard[];
  readonly markers: readonly DerivedMarker[];
  /** The rows standing for a turn's prompt (an interrupted run's, the pending one), for the mirror pairing (prompt-mirror.ts). */
  readonly prompts: readonly TurnPrompt[];
  /** Rows before this index are exactly as the entries before them derived them (a later slot rewrote none). */
  readonly stableUpTo: number;
}

export interface ExpandOptions {
  readonly withContext: boolean;
  readonly withPending: boolean;
}

/** The submitted prompt as the UI shows it while the turn runs. */
export function pendingPromptRow(pending: PendingTurnView): MessageRow {
  return {
    role: 'user',
    content: pending.text,
    timestamp: pending.submittedAt,
    ...(pending.attachments.length > 0 ? { attachments: pending.attachments } : {}),
    ...(pending.source !== null ? { source: pending.source } : {}),
  };
}

/**
 * Handed to recovery as "the context" when nobody reads it: being non-empty, it is not seeded from every
 * display row (the costly part of a recovery pass), and its result is thrown away.
 */
export const UNTRACKED_CONTEXT: readonly MessageRow[] = [{ role: 'system', content: '' }];

export function expandCommitted(state: SessionState, options: ExpandOptions): Expansion {
  let rows: MessageRow[] = [];
  let origins: number[] = [];
  let context: MessageRow[] = [];
  let toolCards: readonly ToolCard[] = [];
  const markers: DerivedMarker[] = [];
  const prompts: TurnPrompt[] = [];
  let stableUpTo = Infinity;
  state.committed.forEach((entry, index) => {
    if (!isRunSlot(entry)) {
      rows.push(entry);
      origins.push(index);
      const projected = options.withContext ? projectRowForContext(entry) : null;
      if (projected !== null) context.push(projected);
      return;
    }
    const run = runOf(state, entry.slot);
    if (run?.interruption == null || run.interruption.superseded) return;
    const start = rows.length;
    const segment = deriveRunSegment({
      sessionId: state.sessionId ?? '',
      run,
      interruption: run.interruption,
      rows,
      context: options.withContext ? context : UNTRACKED_CONTEXT,
      toolCards,
    });
    const end = entry.limit === undefined ? segment.rows.length : Math.min(segment.rows.length, start + entry.limit);
    // The segment may enrich earlier rows in place (dedupe attaches reasoning): take its prefix too.
    for (let at = 0; at < start && at < stableUpTo; at += 1) if (segment.rows[at] !== rows[at]) stableUpTo = at;
    rows = segment.rows.slice(0, end);
    origins = origins.concat(new Array<number>(end - start).fill(index));
    context = options.withContext ? [...segment.context] : [];
    toolCards = segment.toolCards.filter((card) => card.assistantMessageIndex === null || card.assistantMessageIndex < end);
    if (segment.marker !== null && segment.marker.rowIndex < end) markers.push(segment.marker);
    const { turn } = run.interruption;
    if (segment.promptIndex !== null && segment.promptIndex < end) {
      prompts.push({ index: segment.promptIndex, text: turn.text, submittedAt: turn.submittedAt });
    }
  });
  if (options.withPending && state.pending !== null) {
    const { text, submittedAt } = state.pending;
    prompts.push({ index: rows.length, text, submittedAt });
    rows.push(pendingPromptRow(state.pending));
    origins.push(PENDING_ORIGIN);
  }
  return { rows, origins, context, toolCards: [...toolCards], markers, prompts, stableUpTo: Math.min(stableUpTo, rows.length) };
}
