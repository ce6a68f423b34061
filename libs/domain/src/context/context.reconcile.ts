import type { MessageRow } from '../messages/message-row.js';
import { stateDeltaAfterContext } from './context-delta.align.js';
import type { MergeOptions } from '../transcript-merge/merge.context.js';
import { timestampOf } from '../transcript-merge/row-fields.normalizer.js';
import { rowText } from '../messages/message-text.js';
import { mergeSessionMessages } from '../transcript-merge/session-messages.merge.js';
import { withTextMemo, ws } from '../text/whitespace.js';

/** The visible row that preceded a compaction (`compression_anchor_message_key`). */
export interface CompressionAnchor {
  readonly role: string;
  readonly text: string;
  readonly timestamp: number;
  readonly attachmentCount: number;
}

export interface ReconcileContextOptions extends MergeOptions {
  readonly compressionAnchor?: CompressionAnchor | null;
}

const ANCHOR_TEXT_CHARS = 160;
const ANCHOR_TIME_TOLERANCE = 1e-6;

/** A compaction card: its text, lower-cased and left-trimmed, starts with "[context compaction" or "context compaction". */
export function isCompactionMarker(row: MessageRow): boolean {
  const text = rowText(row).toLowerCase().trimStart();
  return text.startsWith('[context compaction') || text.startsWith('context compaction');
}

/**
 * The prefer_context path of `reconciled_state_db_messages_for_session` (reference §2.6): the local
 * (context) list plus the agent-store rows after it. A compacted context only takes agent rows after
 * the compression anchor; without an anchor, or if none matches, the context is returned as it is.
 */
export function reconcileContext(
  local: readonly MessageRow[],
  state: readonly MessageRow[],
  options: ReconcileContextOptions,
): MessageRow[] {
  return withTextMemo(() => reconcile(local, state, options));
}

function reconcile(local: readonly MessageRow[], state: readonly MessageRow[], options: ReconcileContextOptions): MessageRow[] {
  let candidates = state;
  if (local.some(isCompactionMarker)) {
    const anchor = options.compressionAnchor ?? null;
    if (anchor === null) return local.slice();
    const anchorIndex = lastAnchorMatch(state, anchor);
    if (anchorIndex < 0) return local.slice();
    candidates = state.slice(anchorIndex + 1);
  }
  const delta = stateDeltaAfterContext(local, candidates);
  return mergeSessionMessages(local, delta, { watermark: options.watermark, boundary: options.boundary });
}

/**
 * The last agent row matching the anchor: role, attachment count, the first 160 chars of ws text
 * (only when the anchor has text) and a timestamp within 1e-6 s. The agent row's text is compared
 * as stored (no workspace-prefix strip), as the reference rule states it.
 */
function lastAnchorMatch(state: readonly MessageRow[], anchor: CompressionAnchor): number {
  const anchorText = ws(anchor.text).slice(0, ANCHOR_TEXT_CHARS);
  for (let i = state.length - 1; i >= 0; i -= 1) {
    const row = state[i]!;
    const ts = timestampOf(row);
    if (row.role !== anchor.role || (row.attachments?.length ?? 0) !== anchor.attachmentCount) continue;
    if (ts === null || Math.abs(ts - anchor.timestamp) > ANCHOR_TIME_TOLERANCE) continue;
    if (anchorText.length > 0 && ws(rowText(row)).slice(0, ANCHOR_TEXT_CHARS) !== anchorText) continue;
    return i;
  }
  return -1;
}
