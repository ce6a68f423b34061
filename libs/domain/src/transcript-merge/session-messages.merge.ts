import type { MessageRow } from '../messages/message-row.js';
import { attachApiContentFromState } from './api-content.prepass.js';
import { exactDuplicate, seenMergeKey, visibleDuplicateBudget } from './duplicate.steps.js';
import { mergeIntoEmptySidecar } from './empty-sidecar.branch.js';
import { createMergeContext, finiteOrNull, stateCandidateOf, type MergeOptions } from './merge.context.js';
import { appendAtTail, inRangeStateOnly } from './placement.steps.js';
import { nativeImageMirror, prefixReplay, rowIdFastPath, type LadderStep } from './replay.steps.js';
import { withTextMemo } from '../text/whitespace.js';
import { timelineRows } from './timeline.list.js';
import { aboveWatermark, belowWatermarkReplaced, sameSecondEditedUser } from './watermark.steps.js';

/**
 * The reference ladder of §2.3 C.4, in order: for each agent-store row the first step that applies
 * decides. Many outcomes depend on this order (replay before row id, watermark before dedup, dedup
 * before the in-range drop), so it is data, not scattered conditionals.
 */
export const MERGE_LADDER: readonly (readonly [name: string, step: LadderStep])[] = [
  ['1 native-image mirror', nativeImageMirror],
  ['2 prefix replay', prefixReplay],
  ['3 row-id fast path', rowIdFastPath],
  ['4 above-watermark filter', aboveWatermark],
  ['5 below-watermark replaced row', belowWatermarkReplaced],
  ['6 same-second edited user', sameSecondEditedUser],
  ['7 exact duplicate', exactDuplicate],
  ['8 seen merge key', seenMergeKey],
  ['9 visible-duplicate budget', visibleDuplicateBudget],
  ['10 in-range state-only row', inRangeStateOnly],
  ['11 append', appendAtTail],
];

/**
 * `merge_session_messages_append_only` (reference §2): every sidecar row in sidecar order, plus the
 * agent-store rows the sidecar has not observed, verbatim (a user row keeps its workspace prefix).
 * Pure: where the reference mutates sidecar rows (api_content, display metadata) this returns new rows.
 */
export function mergeSessionMessages(
  sidecar: readonly MessageRow[],
  state: readonly MessageRow[],
  options: MergeOptions = {},
): MessageRow[] {
  return withTextMemo(() => mergeLadder(sidecar, state, options));
}

function mergeLadder(sidecar: readonly MessageRow[], state: readonly MessageRow[], options: MergeOptions): MessageRow[] {
  const attached = attachApiContentFromState(sidecar, state);
  if (state.length === 0) return attached;
  if (attached.length === 0) {
    return mergeIntoEmptySidecar(state, finiteOrNull(options.watermark), finiteOrNull(options.boundary));
  }
  if (sidecarOwnsInterruptedTurn(attached)) return attached;
  const context = createMergeContext(attached, state, options);
  for (const row of state) {
    const candidate = stateCandidateOf(row);
    for (const [, step] of MERGE_LADDER) if (step(context, candidate)) break;
  }
  return timelineRows(context.timeline);
}

/**
 * Step C.2, R14: the latest assistant error row ends the transcript (no user/assistant row after it)
 * and its turn holds a partial assistant snapshot: the sidecar owns that cancelled turn's display,
 * so agent-store rows are ignored entirely.
 */
export function sidecarOwnsInterruptedTurn(sidecar: readonly MessageRow[]): boolean {
  let errorIndex = -1;
  for (let i = sidecar.length - 1; i >= 0; i -= 1) {
    const row = sidecar[i]!;
    if (row.role === 'assistant' && row.error === true) {
      errorIndex = i;
      break;
    }
  }
  if (errorIndex < 0) return false;
  if (sidecar.slice(errorIndex + 1).some((row) => row.role === 'user' || row.role === 'assistant')) return false;
  for (let i = errorIndex - 1; i >= 0 && sidecar[i]!.role !== 'user'; i -= 1) {
    if (sidecar[i]!.role === 'assistant' && sidecar[i]!.partial === true) return true;
  }
  return false;
}
