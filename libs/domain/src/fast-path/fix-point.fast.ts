import { attachApiContentFromState } from '../transcript-merge/api-content.prepass.js';
import { mirrorTextOf } from '../transcript-merge/native-image.mirror.js';
import type { MessageRow, StateRow } from '../messages/message-row.js';
import { appendedKeys, factsOf } from './fix-point.keys.js';
import { everyRowDropped, probeAt, type MergedRows } from './fix-point.ladder.js';
import { EXPAND, ownsTurnAfter, sameStamp, slotStamps, stampOf, tailPartialOf, type ReachedFixPoint, type FixPoint } from './fix-point.record.js';
import { proofOf } from './fix-point.proof.js';
import { FACT_SAFE10, hasNoMeta, max, STRIDE } from './fix-point.rows.js';
import { hasToolCalls } from '../messages/message-row.js';
import { stableIdOf, timestampOf } from '../transcript-merge/row-fields.normalizer.js';
import type { Transient } from '../session-state/transient.js';
import { isMultipartUser } from '../session-state/prompt-mirror.js';
import { isRunSlot, type CommittedEntry, type SessionState } from '../session-state/session.state.js';
import { stateRowInclusion } from '../session-state/state-rows.js';
import { expandCommitted, type Expansion } from '../session-state/transcript.expand.js';

/** The fast path to a commit's fix point: S' proven from the last fix point (conditions 1–5 of fix-point.ts). */

/**
 * The expansion of the entries S gained since the last fix point (condition 1), with the committed index of each
 * row. Old entries derive what they derived (their stamps match), so X0 is the prefix of the expansion unless a
 * new slot rewrote one of its rows.
 */
function expandAppended(state: SessionState, fixPoint: FixPoint): { rows: readonly MessageRow[]; origins: readonly number[] } | null {
  const { committed } = state;
  const appended = committed.slice(fixPoint.committedLength);
  if (!appended.some(isRunSlot)) {
    return { rows: appended as MessageRow[], origins: appended.map((_, index) => fixPoint.committedLength + index) };
  }
  const expansion: Expansion = expandCommitted(state, EXPAND);
  const oldLength = expansion.origins.findIndex((origin) => origin >= fixPoint.committedLength);
  const boundary = oldLength < 0 ? expansion.rows.length : oldLength;
  if (boundary !== fixPoint.expandedLength || expansion.stableUpTo < boundary) return null;
  return { rows: expansion.rows.slice(boundary), origins: expansion.origins.slice(boundary) };
}

/**
 * T = T0 ++ N (condition 1 for T), with the facts of T0 continued by a zero entry per new row. `facts` is the
 * fix point's array when this fold owns it (written in place: the old fix point is replaced either way), else a
 * copy, so a commit does not copy 4 numbers per state row of the session.
 */
function mergedRows(state: SessionState, fixPoint: FixPoint, transient: Transient | null): MergedRows | null {
  const old = fixPoint.rows;
  const oldCount = old.length / STRIDE;
  const lastOld = oldCount > 0 ? old[(oldCount - 1) * STRIDE] : -1;
  const rows: StateRow[] = [];
  const fresh: StateRow[] = [];
  const facts = transient === null ? old.slice() : transient.ownArray(old);
  for (let index = 0; index < state.stateRows.length; index += 1) {
    const row = state.stateRows[index];
    const included = stateRowInclusion(row, state.pending) === 'included';
    if (rows.length < oldCount && old[rows.length * STRIDE] === row.rowId) {
      if (state.stateRowSeen[index] > fixPoint.observation || !included) return null;
      rows.push(row);
      continue;
    }
    if (!included) continue;
    if (rows.length < oldCount || row.rowId <= lastOld) return null;
    rows.push(row);
    fresh.push(row);
    facts.push(row.rowId, 0, 0, -1);
  }
  return rows.length >= oldCount ? { rows, fresh, facts, probes: [] } : null;
}

/** Condition 2 for one new row: later than every old row (by whole second), no stable id. */
const separated = (row: MessageRow, oldSecond: number | null): boolean => {
  const ts = timestampOf(row);
  return ts !== null && (oldSecond === null || Math.trunc(ts) > oldSecond) && stableIdOf(row) === null;
};

/**
 * The fix point proven without the full merge (see the module comment), or null. Exported for the property test, which
 * counts how often it applies; not part of the domain's index. With the fold's `transient`, the arrays this fold
 * owns (S, the fix point's facts) are written in place instead of copied: a commit then costs what the rows it adds
 * cost, plus one read of each state row. Without it nothing passed in is written.
 */
export function fastFixPoint(state: SessionState, transient: Transient | null = null): ReachedFixPoint | null {
  const fixPoint = proofOf(state);
  const { committed } = state;
  if (fixPoint === null || fixPoint.committedLength > committed.length) return null;
  if (!fixPoint.slots.every((stamp) => sameStamp(stamp, stampOf(state, stamp[0])))) return null;
  const tail = expandAppended(state, fixPoint);
  const merged = tail === null ? null : mergedRows(state, fixPoint, transient);
  if (tail === null || merged === null) return null;
  const oldSecond = fixPoint.maxTs === null ? null : Math.trunc(fixPoint.maxTs);
  for (const row of tail.rows) {
    if (!separated(row, oldSecond) || row.rowId != null || mirrorTextOf(row) !== null) return null;
  }
  for (const row of merged.fresh) {
    if (!separated(row, oldSecond) || row.rowId <= fixPoint.maxRowId || !hasNoMeta(row) || isMultipartUser(row)) return null;
  }
  const attached = merged.fresh.length === 0 ? tail.rows : attachApiContentFromState(tail.rows, merged.fresh);
  const expandedLength = fixPoint.expandedLength + attached.length;
  const ownsTurn = ownsTurnAfter(fixPoint, attached);
  let sidecarMaxTs = fixPoint.sidecarMaxTs;
  let maxTs = fixPoint.maxTs;
  for (const row of attached) sidecarMaxTs = max(sidecarMaxTs, timestampOf(row));
  const keys = appendedKeys(attached, fixPoint.expandedLength);
  const freshFrom = merged.rows.length - merged.fresh.length;
  merged.fresh.forEach((row, offset) => {
    const at = (freshFrom + offset) * STRIDE;
    const { mask, hash, holder } = factsOf(probeAt(merged, freshFrom + offset), keys, sidecarMaxTs);
    merged.facts[at + 1] = mask | (hasToolCalls(row) ? 0 : FACT_SAFE10);
    merged.facts[at + 2] = hash;
    merged.facts[at + 3] = holder;
    maxTs = max(maxTs, timestampOf(row));
  });
  if (merged.rows.length > 0 && !ownsTurn) {
    if (expandedLength === 0) return null;
    if (!everyRowDropped(merged, keys, fixPoint.expandedLength, freshFrom, sidecarMaxTs, state.watermark)) return null;
  }
  let out: CommittedEntry[] | null = null;
  tail.origins.forEach((origin, index) => {
    if (isRunSlot(committed[origin]) || attached[index] === committed[origin]) return;
    out ??= transient === null ? committed.slice() : transient.ownArray(committed);
    out[origin] = attached[index];
  });
  const next: FixPoint = {
    committedLength: committed.length,
    expandedLength,
    observation: state.observations,
    slots: [...fixPoint.slots, ...slotStamps(state, committed.slice(fixPoint.committedLength))],
    maxTs: max(sidecarMaxTs, maxTs),
    sidecarMaxTs,
    maxRowId: fixPoint.maxRowId,
    ownsTurn,
    tailPartial: tailPartialOf(attached, fixPoint.tailPartial),
    rows: merged.facts,
  };
  return { committed: out ?? committed, adopted: [], fixPoint: next };
}
