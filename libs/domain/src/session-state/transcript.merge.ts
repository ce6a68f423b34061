import type { MessageRow, StateRow } from '../messages/message-row.js';
import { mergeSessionMessages } from '../transcript-merge/session-messages.merge.js';
import { unmirror, type MirrorPair, type TurnPrompt } from './prompt-mirror.js';
import { isSameRow } from './row-identity.js';
import { PENDING_ORIGIN, type Expansion } from './transcript.expand.js';
import { isRunSlot, type CommittedEntry, type RunSlot } from './session.state.js';

/** A state row the merge added (it has no expanded row behind it). */
export const STATE_SOURCE = -1;

export interface MergedTranscript {
  readonly rows: readonly MessageRow[];
  /** Per merged row: the index of the expanded row it is, or STATE_SOURCE. */
  readonly sources: readonly number[];
  /** The state rows merged: the agent mirrors of the expansion's prompts left out (prompt-mirror.ts). */
  readonly stateRows: readonly StateRow[];
  /** The prompts paired with their agent mirror (prompt indexes point into the expansion's rows). */
  readonly mirrors: readonly MirrorPair[];
}

export interface WatermarkOptions {
  readonly watermark: number | null;
  readonly boundary: number | null;
}

/**
 * Display merge of S (expanded) and T, keeping track of which output rows are S rows. The merge keeps every
 * sidecar row in order (reference §2.3 C), so one forward walk pairs them up. An agent row that mirrors a
 * prompt of S (or `landing`, the pending turn a commit lands) is not merged: the prompt row stands for it.
 */
export function mergeWithSources(
  expansion: Expansion,
  allStateRows: readonly StateRow[],
  options: WatermarkOptions,
  landing: TurnPrompt | null = null,
): MergedTranscript {
  const sidecar = expansion.rows;
  const prompts = landing === null ? expansion.prompts : [...expansion.prompts, landing];
  const { stateRows, pairs: mirrors } = unmirror(sidecar, prompts, allStateRows);
  if (stateRows.length === 0) return { rows: sidecar, sources: sidecar.map((_, index) => index), stateRows, mirrors };
  const rows = mergeSessionMessages(sidecar, stateRows, options);
  const sources: number[] = [];
  let next = 0;
  for (const row of rows) {
    if (next < sidecar.length && isSameRow(row, sidecar[next])) sources.push(next++);
    else sources.push(STATE_SOURCE);
  }
  return { rows, sources, stateRows, mirrors };
}

export interface Collapsed {
  readonly committed: CommittedEntry[];
  /** State rows that became committed rows, in order. */
  readonly adopted: MessageRow[];
}

/**
 * Turns a merged display back into S: rows stay rows (enriched as merged), state rows become committed rows,
 * and each run's derived rows fold back into its slot so they keep re-deriving. With `keep`, only the first
 * `keep` merged rows survive (a truncation); a slot cut short remembers how many of its rows it keeps.
 */
export function collapseMerged(
  committed: readonly CommittedEntry[],
  expansion: Expansion,
  merged: MergedTranscript,
  keep: number | null = null,
): Collapsed {
  const out: CommittedEntry[] = [];
  const adopted: MessageRow[] = [];
  const slotRows = new Map<number, { total: number; kept: number; at: number }>();
  for (const origin of expansion.origins) {
    if (origin >= 0 && isRunSlot(committed[origin])) {
      const counts = slotRows.get(origin) ?? { total: 0, kept: 0, at: -1 };
      slotRows.set(origin, { ...counts, total: counts.total + 1 });
    }
  }
  let nextEntry = 0;
  const emitSlotsBefore = (entry: number): void => {
    for (; nextEntry < entry; nextEntry += 1) {
      // A slot deriving no rows (a completed journal fully deduped) still holds its place.
      if (isRunSlot(committed[nextEntry]) && !slotRows.has(nextEntry)) out.push(committed[nextEntry]);
    }
  };
  const limit = keep ?? merged.rows.length;
  for (let index = 0; index < limit; index += 1) {
    const row = merged.rows[index];
    const source = merged.sources[index];
    const origin = source === STATE_SOURCE ? PENDING_ORIGIN : expansion.origins[source];
    if (origin < 0) {
      // The pending prompt is not committed; a state row the merge showed becomes one.
      if (source === STATE_SOURCE) {
        adopted.push(row);
        out.push(row);
      }
      continue;
    }
    emitSlotsBefore(origin);
    const entry = committed[origin];
    if (!isRunSlot(entry)) {
      out.push(row);
      nextEntry = Math.max(nextEntry, origin + 1);
      continue;
    }
    const counts = slotRows.get(origin);
    if (counts === undefined) continue;
    if (counts.at < 0) {
      counts.at = out.length;
      out.push(entry);
      nextEntry = Math.max(nextEntry, origin + 1);
    }
    counts.kept += 1;
  }
  if (keep === null) emitSlotsBefore(committed.length);
  for (const counts of slotRows.values()) {
    if (counts.at >= 0 && counts.kept < counts.total) {
      const slot = out[counts.at] as RunSlot;
      out[counts.at] = { slot: slot.slot, limit: counts.kept };
    }
  }
  return { committed: out, adopted };
}
