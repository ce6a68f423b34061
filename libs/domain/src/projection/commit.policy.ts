import { canSupersedeMarker } from '../journal/index.js';
import {
  attachApiContentFromState,
  backfillMeta,
  contentKey,
  dedupKey,
  looseText,
  mergeKey,
  mirrorTextOf,
  sidecarOwnsInterruptedTurn,
  visibleKey,
  visibleTextOf,
} from '../merge/index.js';
import type { MessageRow, StateRow } from '../messages/message-row.js';
import { journalSize } from './journal-chunks.js';
import {
  isRunSlot,
  runOf,
  storedRunOf,
  type CommittedEntry,
  type FixPoint,
  type SessionState,
  type SlotStamp,
} from './session.state.js';
import { effectiveStateRows, stateRowInclusion } from './state-rows.js';
import { expandCommitted, type Expansion } from './transcript.expand.js';
import { collapseMerged, mergeWithSources, STATE_SOURCE } from './transcript.merge.js';

/**
 * Policies of a commit: how it fixes the merged display as the new S, and whether a late settle may supersede a
 * marker.
 *
 * The reference of a fix is the full merge: S' = collapse(merge(expand(S), T)) (reference §2, collapsed back
 * into S with its run slots). It costs a walk of the whole transcript, so a fix first tries `fastFix`, which
 * returns S' only when it can PROVE what the full merge returns, from what the previous fix recorded
 * (`FixPoint`) and the rows added since; anything it cannot prove runs the full merge. `evolveAll(..., {
 * alwaysMerge: true })` always runs the full merge: the property test checks both give the same state.
 *
 * Why the proof holds. Let X = X0 ++ A be the expansion now (X0: the one the previous fix recorded, A: what S
 * gained since), T = T0 ++ N the state rows the merge sees (T0: the ones the previous fix merged, unchanged and
 * still all included; N: rows new to the merge, all sorting after T0). The fast path requires:
 * 1. X0 is unchanged: S only gained entries at its end, every run slot of S0 derives what it derived (same
 *    journal size, abandoned and superseded flags), and a run slot in A does not re-derive an earlier row.
 * 2. The §2.2 pre-pass splits in two: every row of A and N has a finite timestamp whose whole second is later
 *    than any row of X0 and T0, no stable id, A rows carry no row id, N rows carry row ids no row of X carries,
 *    and X0/T0 have no untimed row. Then every tier group (stable id, row id, exact time, same second,
 *    content-only with an untimed side) holds only old rows or only new rows, so the pre-pass attaches to X0
 *    what it attached at the previous fix (nothing new: the previous fix checked that, or baked it) and to A
 *    what `attachApiContentFromState(A, N)` attaches.
 * 3. No ladder step (§2.3 C.4) inserts a row. A row with R14 (the sidecar owns an interrupted turn) skips the
 *    ladder. Otherwise every row of T gets one of three certificates, each depending on the row and on X only:
 *    - step ≤ 8: X holds its dedup key K2 (step 7 drops it), or its merge key K1 and it is in the sidecar's
 *      time range (step 8 drops it). Steps before only drop too. It never reaches the budget of step 9.
 *    - step 10: in range, no stable id, no tool calls, no possible row-id conflict, and a user row's content
 *      key K3 is in X (else a user row is inserted), and it is not a post-edit reply (W absent, its timestamp
 *      is not W, or its K3 is in X): step 10 drops it if it gets there.
 *    - step 9: X holds its visible key K4 at positions ≥ its index i in T in greater number than the rows
 *      before it that may consume that budget: the replay pointer has advanced at most once per earlier row,
 *      so replays consumed only holders before position i, and step 9 consumes one holder per earlier row
 *      whose K4 hashes the same, or which has no holder of its own and may match it fuzzily (§2.1).
 *    The facts behind them (which keys X holds, the hash of K4, the last holder) only grow as X grows by
 *    appends, so they are recorded per row at a fix and only the rows of N are keyed against A afterwards.
 * 4. Nothing else changes a row of X: no state row carries display metadata to backfill (R13), and neither
 *    the native-image mirror (step 1) nor the row-id fast path (step 3) can attach provider bytes (no rich row
 *    of A; a row id carried by X is carried with the state row's provider bytes).
 * Under 1–4 the merge returns X with the pre-pass attachments, so S' is S with A's rows attached.
 */

/** Bits of `FixPoint.rows` facts: what the expansion holds for a state row. */
const FACT_K1 = 1;
const FACT_K2 = 2;
const FACT_K3 = 4;
const FACT_K4 = 8;
/** Step 10 can only drop the row: no stable id, no tool calls, no possible row-id conflict (R17). */
const FACT_SAFE10 = 16;
const STRIDE = 4;

export interface CommitFix {
  readonly committed: readonly CommittedEntry[];
  /** State rows that became committed rows, in order. */
  readonly adopted: readonly MessageRow[];
  /** What the next fix needs to prove its own result; null: it runs the full merge. */
  readonly fix: FixPoint | null;
}

/** The fix of a commit: the proven fast result, else the full merge (always the full merge with `alwaysMerge`). */
export function commitFix(state: SessionState, alwaysMerge: boolean): CommitFix {
  return (alwaysMerge ? null : fastFix(state)) ?? fullFix(state);
}

const EXPAND = { withContext: false, withPending: false } as const;

function fullFix(state: SessionState): CommitFix {
  const stateRows = effectiveStateRows(state.stateRows, state.pending);
  const expansion = expandCommitted(state, EXPAND);
  const merged = mergeWithSources(expansion, stateRows, state);
  const { committed, adopted } = collapseMerged(state.committed, expansion, merged);
  return { committed, adopted, fix: fixPointAfter({ ...state, committed }, stateRows) };
}

const timeOf = (row: MessageRow): number | null =>
  typeof row.timestamp === 'number' && Number.isFinite(row.timestamp) ? row.timestamp : null;
const stableIdOf = (row: MessageRow): string | null => (typeof row.id === 'string' && row.id.length > 0 ? row.id : null);
const apiOf = (row: MessageRow): string | null =>
  typeof row.apiContent === 'string' && row.apiContent.length > 0 ? row.apiContent : null;
const rowIdOf = (row: MessageRow): number | null =>
  typeof row.rowId === 'number' && Number.isSafeInteger(row.rowId) && row.rowId >= 0 ? row.rowId : null;
const hasToolCalls = (row: MessageRow): boolean => Array.isArray(row.toolCalls) && row.toolCalls.length > 0;
const isUserOrAssistant = (row: MessageRow): boolean => row.role === 'user' || row.role === 'assistant';
/** Rows the pre-pass files by content (§2.2): an untimed one may pair in the content-only tier. */
const takesPartInPrepass = (row: MessageRow): boolean => isUserOrAssistant(row) || mirrorTextOf(row) !== null;
const max = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

const NO_META: MessageRow = { role: 'user' };
/** R13 could backfill nothing from this row: it has no non-empty display metadata. */
const hasNoMeta = (row: MessageRow): boolean => backfillMeta(NO_META, row) === NO_META;

/**
 * A hash of a visible key for counting budget consumers: equal keys hash equal; a collision only makes the count
 * more conservative. FNV-1a of the length and of at most the first and last 64 code units (keys hold whole texts).
 */
function hashOf(key: string): number {
  let hash = Math.imul(0x811c9dc5 ^ key.length, 0x01000193);
  const step = (index: number): void => {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  };
  if (key.length <= 128) for (let index = 0; index < key.length; index += 1) step(index);
  else for (let index = 0; index < 64; index += 1) {
    step(index);
    step(key.length - 1 - index);
  }
  return hash >>> 0;
}

function stampOf(state: SessionState, runId: string): SlotStamp {
  const run = storedRunOf(state, runId);
  const interruption = run?.interruption ?? null;
  if (run === undefined || interruption === null) return [runId, -1, false, false];
  return [runId, journalSize(run.journal), interruption.abandoned, interruption.superseded];
}

const slotStamps = (state: SessionState, entries: readonly CommittedEntry[]): SlotStamp[] =>
  entries.flatMap((entry) => (isRunSlot(entry) ? [stampOf(state, entry.slot)] : []));

const sameStamp = (a: SlotStamp, b: SlotStamp): boolean => a[1] === b[1] && a[2] === b[2] && a[3] === b[3];

/** From the end of `rows` back to its last user row, an assistant row is partial (`before`: the rows before). */
function tailPartialOf(rows: readonly MessageRow[], before: boolean): boolean {
  for (let index = rows.length - 1; index >= 0; index -= 1) {
    const row = rows[index];
    if (row.role === 'user') return false;
    if (row.role === 'assistant' && row.partial === true) return true;
  }
  return before;
}

/** R14 (`sidecarOwnsInterruptedTurn`) of X0 ++ rows, from the flags of X0. */
function ownsTurnAfter(fix: FixPoint, rows: readonly MessageRow[]): boolean {
  const error = rows.findLastIndex((row) => row.role === 'assistant' && row.error === true);
  if (error < 0) return fix.ownsTurn && !rows.some(isUserOrAssistant);
  if (rows.slice(error + 1).some(isUserOrAssistant)) return false;
  for (let index = error - 1; index >= 0; index -= 1) {
    const row = rows[index];
    if (row.role === 'user') return false;
    if (row.role === 'assistant' && row.partial === true) return true;
  }
  return fix.tailPartial;
}

/** Which keys an expansion holds, as the merge files them (sidecar side, after the pre-pass). */
interface SidecarKeys {
  hasK1(row: MessageRow): boolean;
  hasK2(row: MessageRow): boolean;
  hasK3(row: MessageRow): boolean;
  /** The positions in X of the holders of the row's visible key K4, ascending (empty: none). */
  holdersOf(visible: string, role: string): readonly number[];
}

/** Every key of every row, filed (a fix point after a full merge: one pass over X). */
function filedKeys(rows: readonly MessageRow[]): SidecarKeys {
  const k1 = new Set(rows.map((row) => mergeKey(row)));
  const k2 = new Set(rows.map((row) => dedupKey(row)));
  const k3 = new Set(rows.map((row) => contentKey(row, 'sidecar')));
  const k4 = new Map<string, number[]>();
  rows.forEach((row, position) => {
    const visible = visibleKey(row, 'sidecar');
    const positions = k4.get(visible);
    if (positions === undefined) k4.set(visible, [position]);
    else positions.push(position);
  });
  return {
    hasK1: (row) => k1.has(mergeKey(row)),
    hasK2: (row) => k2.has(dedupKey(row)),
    hasK3: (row) => k3.has(contentKey(row, 'state')),
    holdersOf: (visible) => k4.get(visible) ?? [],
  };
}

/**
 * The keys of the few rows S gained since the fix, computed only for rows that could share them: K2 needs the
 * same exact timestamp, K1 the same whole second (or a stable id), K3 and K4 the same role (keys hold whole texts
 * and provider bytes, so building them for every pair would cost more than the rest of the fix).
 */
function appendedKeys(rows: readonly MessageRow[], offset: number): SidecarKeys {
  const cache = new Map<string, string>();
  const keyOf = (kind: string, index: number, make: (row: MessageRow) => string): string => {
    const name = `${kind}${index}`;
    let key = cache.get(name);
    if (key === undefined) cache.set(name, (key = make(rows[index])));
    return key;
  };
  const any = (matches: (row: MessageRow) => boolean, kind: string, make: (row: MessageRow) => string, key: () => string): boolean => {
    for (let index = 0; index < rows.length; index += 1) if (matches(rows[index]) && keyOf(kind, index, make) === key()) return true;
    return false;
  };
  const lazy = (make: () => string): (() => string) => {
    let value: string | undefined;
    return () => (value ??= make());
  };
  const second = (row: MessageRow): number | null => {
    const ts = timeOf(row);
    return ts === null ? null : Math.trunc(ts);
  };
  return {
    hasK1: (row) =>
      any((other) => stableIdOf(row) !== null || (other.role === row.role && second(other) === second(row)), 'k1', mergeKey, lazy(() => mergeKey(row))),
    hasK2: (row) =>
      any((other) => stableIdOf(row) !== null || (other.role === row.role && other.timestamp === row.timestamp), 'k2', dedupKey, lazy(() => dedupKey(row))),
    hasK3: (row) => any((other) => other.role === row.role, 'k3', (other) => contentKey(other, 'sidecar'), lazy(() => contentKey(row, 'state'))),
    holdersOf: (visible, role) => {
      const positions: number[] = [];
      rows.forEach((other, index) => {
        if (other.role === role && keyOf('k4', index, (it) => visibleKey(it, 'sidecar')) === visible) positions.push(offset + index);
      });
      return positions;
    },
  };
}

/**
 * What `keys` holds for a state row, as FACT_* bits, with the hash of its K4 and its last holder. Keys are built
 * only while they can matter: a row X holds K2 of, or K1 of within range, is dropped by step 8 at the latest from
 * now on (the range only grows), so it needs nothing else; K3 only matters without K1.
 */
function factsOf(row: MessageRow, keys: SidecarKeys, sidecarMaxTs: number | null): { mask: number; hash: number; holder: number } {
  if (keys.hasK2(row)) return { mask: FACT_K2, hash: 0, holder: -1 };
  let mask = 0;
  if (keys.hasK1(row)) {
    const ts = timeOf(row);
    if (stableIdOf(row) !== null || (ts !== null && sidecarMaxTs !== null && ts <= sidecarMaxTs)) return { mask: FACT_K1, hash: 0, holder: -1 };
    mask |= FACT_K1;
  } else if (keys.hasK3(row)) mask |= FACT_K3;
  const visible = visibleKey(row, 'state');
  const holders = keys.holdersOf(visible, row.role);
  if (holders.length > 0) mask |= FACT_K4;
  return { mask, hash: hashOf(visible), holder: holders.at(-1) ?? -1 };
}

/**
 * The fix point of a fully merged S: its expansion after the pre-pass, and the facts of every state row merged.
 * Null (the next fix merges in full) when the pre-pass would still change a committed row, or when a row makes
 * conditions 2 or 4 unprovable (an untimed row, display metadata, a row id carried without provider bytes).
 */
function fixPointAfter(state: SessionState, stateRows: readonly StateRow[]): FixPoint | null {
  const expansion = expandCommitted(state, EXPAND);
  const rows = stateRows.length === 0 ? expansion.rows : attachApiContentFromState(expansion.rows, stateRows);
  let sidecarMaxTs: number | null = null;
  let maxRowId = -1;
  let richWithoutApi = false;
  const carriers = new Map<number, MessageRow | null>();
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index];
    if (row !== expansion.rows[index] && !isRunSlot(state.committed[expansion.origins[index]])) return null;
    const ts = timeOf(row);
    if (ts === null && takesPartInPrepass(row)) return null;
    sidecarMaxTs = max(sidecarMaxTs, ts);
    const rowId = rowIdOf(row);
    if (rowId !== null) {
      maxRowId = Math.max(maxRowId, rowId);
      carriers.set(rowId, carriers.has(rowId) ? null : row);
    }
    if (mirrorTextOf(row) !== null && apiOf(row) === null) richWithoutApi = true;
  }
  const keys = filedKeys(rows);
  let maxTs = sidecarMaxTs;
  const facts: number[] = [];
  for (const row of stateRows) {
    const ts = timeOf(row);
    if (ts === null && takesPartInPrepass(row)) return null;
    maxTs = max(maxTs, ts);
    const api = apiOf(row);
    if (!hasNoMeta(row) || (api !== null && richWithoutApi && row.role === 'user')) return null;
    const carrier = carriers.get(row.rowId);
    const carrierApi = carrier == null ? null : apiOf(carrier);
    if (carrier != null && carrierApi === null && api !== null) return null;
    const conflict = carrierApi !== null && api !== null && carrierApi !== api;
    const { mask, hash, holder } = factsOf(row, keys, sidecarMaxTs);
    const safe = stableIdOf(row) === null && !hasToolCalls(row) && !conflict ? FACT_SAFE10 : 0;
    facts.push(row.rowId, mask | safe, hash, holder);
  }
  return {
    committedLength: state.committed.length,
    expandedLength: rows.length,
    observation: state.observations,
    slots: slotStamps(state, state.committed),
    maxTs,
    sidecarMaxTs,
    maxRowId,
    ownsTurn: rows.length > 0 && sidecarOwnsInterruptedTurn(rows),
    tailPartial: tailPartialOf(rows, false),
    rows: facts,
  };
}

/**
 * The expansion of the entries S gained since the fix (condition 1), with the committed index of each row. Old
 * entries derive what they derived (their stamps match), so X0 is the prefix of the expansion unless a new slot
 * rewrote one of its rows.
 */
function expandAppended(state: SessionState, fix: FixPoint): { rows: readonly MessageRow[]; origins: readonly number[] } | null {
  const { committed } = state;
  const appended = committed.slice(fix.committedLength);
  if (!appended.some(isRunSlot)) {
    return { rows: appended as MessageRow[], origins: appended.map((_, index) => fix.committedLength + index) };
  }
  const expansion: Expansion = expandCommitted(state, EXPAND);
  const oldLength = expansion.origins.findIndex((origin) => origin >= fix.committedLength);
  const boundary = oldLength < 0 ? expansion.rows.length : oldLength;
  if (boundary !== fix.expandedLength || expansion.stableUpTo < boundary) return null;
  return { rows: expansion.rows.slice(boundary), origins: expansion.origins.slice(boundary) };
}

/**
 * The state rows of this merge, T = T0 ++ N (condition 1 for T): the rows merged at the fix are unchanged and
 * still included, the new ones sort after them. `facts` continues `FixPoint.rows` (stride 4) with a zero entry
 * per new row; `rows[i]` is the state row of entry i.
 */
interface MergedRows {
  readonly rows: StateRow[];
  readonly fresh: StateRow[];
  readonly facts: number[];
}

function mergedRows(state: SessionState, fix: FixPoint): MergedRows | null {
  const old = fix.rows;
  const oldCount = old.length / STRIDE;
  const lastOld = oldCount > 0 ? old[(oldCount - 1) * STRIDE] : -1;
  const rows: StateRow[] = [];
  const fresh: StateRow[] = [];
  const facts = old.slice();
  for (let index = 0; index < state.stateRows.length; index += 1) {
    const row = state.stateRows[index];
    const included = stateRowInclusion(row, state.pending) === 'included';
    if (rows.length < oldCount && old[rows.length * STRIDE] === row.rowId) {
      if (state.stateRowSeen[index] > fix.observation || !included) return null;
      rows.push(row);
      continue;
    }
    if (!included) continue;
    if (rows.length < oldCount || row.rowId <= lastOld) return null;
    rows.push(row);
    fresh.push(row);
    facts.push(row.rowId, 0, 0, -1);
  }
  return rows.length >= oldCount ? { rows, fresh, facts } : null;
}

/** Condition 2 for one new row: later than every old row (by whole second), no stable id. */
const separated = (row: MessageRow, oldSecond: number | null): boolean => {
  const ts = timeOf(row);
  return ts !== null && (oldSecond === null || Math.trunc(ts) > oldSecond) && stableIdOf(row) === null;
};

/** Whether step 9 might match `probe` fuzzily to the entry of `target`'s visible key (an over-approximation of §2.1). */
function mayMatchFuzzily(probe: MessageRow, target: MessageRow): boolean {
  if (probe.role !== target.role || apiOf(probe) !== apiOf(target)) return false;
  const a = visibleTextOf(probe, 'state');
  const b = visibleTextOf(target, 'state');
  if (a.length === 0 || b.length === 0) return false;
  if (a.includes(b) || b.includes(a)) return true;
  const la = looseText(a);
  const lb = looseText(b);
  return la.length > 0 && lb.length > 0 && (la.includes(lb) || lb.includes(la));
}

type Certificate = 'step8' | 'step10' | 'none';

function certificateOf(row: StateRow, mask: number, sidecarMaxTs: number | null, watermark: number | null): Certificate {
  const ts = timeOf(row);
  const inRange = ts !== null && sidecarMaxTs !== null && ts <= sidecarMaxTs;
  if ((mask & FACT_K2) !== 0 || ((mask & FACT_K1) !== 0 && (inRange || stableIdOf(row) !== null))) return 'step8';
  const contentSeen = (mask & FACT_K3) !== 0;
  const dropsAt10 =
    inRange &&
    (mask & FACT_SAFE10) !== 0 &&
    (row.role !== 'user' || contentSeen) &&
    (watermark === null || ts !== watermark || contentSeen);
  return dropsAt10 ? 'step10' : 'none';
}

/**
 * Condition 3: every merged row is dropped by the ladder. Rows of T0 without a certificate are keyed against A
 * too (their facts only grow); `oldLength` is |X0|, `freshFrom` the first entry of N.
 */
function everyRowDropped(
  merged: MergedRows,
  keys: SidecarKeys,
  oldLength: number,
  freshFrom: number,
  sidecarMaxTs: number | null,
  watermark: number | null,
): boolean {
  const { rows, facts } = merged;
  const consumers: number[] = [];
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index];
    const at = index * STRIDE;
    let certificate = certificateOf(row, facts[at + 1], sidecarMaxTs, watermark);
    if (certificate === 'none' && index < freshFrom) {
      const { mask, holder } = factsOf(row, keys, sidecarMaxTs);
      facts[at + 1] |= mask;
      facts[at + 3] = Math.max(facts[at + 3], holder);
      certificate = certificateOf(row, facts[at + 1], sidecarMaxTs, watermark);
    }
    if (certificate === 'step8') continue;
    if (certificate === 'none') {
      if ((facts[at + 1] & FACT_K4) === 0) return false;
      const holders = keys.holdersOf(visibleKey(row, 'state'), row.role).filter((position) => position >= index).length;
      const known = facts[at + 3] >= index && facts[at + 3] < oldLength ? 1 : 0;
      let consumed = 0;
      for (const other of consumers) {
        const sameKey = facts[other * STRIDE + 2] === facts[at + 2];
        if (sameKey || ((facts[other * STRIDE + 1] & FACT_K4) === 0 && mayMatchFuzzily(rows[other], row))) consumed += 1;
      }
      if (consumed >= holders + known) return false;
    }
    consumers.push(index);
  }
  return true;
}

/**
 * The fix proven without the full merge (see the module comment), or null. Exported for the property test, which
 * counts how often it applies; not part of the domain's index.
 */
export function fastFix(state: SessionState): CommitFix | null {
  const fix = state.lastFix;
  const { committed } = state;
  if (fix === null || fix.committedLength > committed.length) return null;
  if (!fix.slots.every((stamp) => sameStamp(stamp, stampOf(state, stamp[0])))) return null;
  const tail = expandAppended(state, fix);
  const merged = tail === null ? null : mergedRows(state, fix);
  if (tail === null || merged === null) return null;
  const oldSecond = fix.maxTs === null ? null : Math.trunc(fix.maxTs);
  for (const row of tail.rows) {
    if (!separated(row, oldSecond) || row.rowId != null || mirrorTextOf(row) !== null) return null;
  }
  for (const row of merged.fresh) {
    if (!separated(row, oldSecond) || row.rowId <= fix.maxRowId || !hasNoMeta(row)) return null;
  }
  const attached = merged.fresh.length === 0 ? tail.rows : attachApiContentFromState(tail.rows, merged.fresh);
  const expandedLength = fix.expandedLength + attached.length;
  const ownsTurn = ownsTurnAfter(fix, attached);
  let sidecarMaxTs = fix.sidecarMaxTs;
  let maxTs = fix.maxTs;
  for (const row of attached) sidecarMaxTs = max(sidecarMaxTs, timeOf(row));
  const keys = appendedKeys(attached, fix.expandedLength);
  const freshFrom = merged.rows.length - merged.fresh.length;
  merged.fresh.forEach((row, offset) => {
    const at = (freshFrom + offset) * STRIDE;
    const { mask, hash, holder } = factsOf(row, keys, sidecarMaxTs);
    merged.facts[at + 1] = mask | (hasToolCalls(row) ? 0 : FACT_SAFE10);
    merged.facts[at + 2] = hash;
    merged.facts[at + 3] = holder;
    maxTs = max(maxTs, timeOf(row));
  });
  if (merged.rows.length > 0 && !ownsTurn) {
    if (expandedLength === 0) return null;
    if (!everyRowDropped(merged, keys, fix.expandedLength, freshFrom, sidecarMaxTs, state.watermark)) return null;
  }
  let out: CommittedEntry[] | null = null;
  tail.origins.forEach((origin, index) => {
    if (isRunSlot(committed[origin]) || attached[index] === committed[origin]) return;
    out ??= committed.slice();
    out[origin] = attached[index];
  });
  const next: FixPoint = {
    committedLength: committed.length,
    expandedLength,
    observation: state.observations,
    slots: [...fix.slots, ...slotStamps(state, committed.slice(fix.committedLength))],
    maxTs: max(sidecarMaxTs, maxTs),
    sidecarMaxTs,
    maxRowId: fix.maxRowId,
    ownsTurn,
    tailPartial: tailPartialOf(attached, fix.tailPartial),
    rows: merged.facts,
  };
  return { committed: out ?? committed, adopted: [], fix: next };
}

/**
 * §3.10: the run's own late settle may replace its marker only while no turn is pending, the marker is this
 * run's and the last row of the display, and the nearest user row before it carries the run's prompt.
 */
export function canSupersede(state: SessionState, runId: string): boolean {
  if (state.pending !== null) return false;
  const interruption = runOf(state, runId)?.interruption;
  if (interruption == null || interruption.superseded) return false;
  const slotIndex = state.committed.findIndex((entry) => isRunSlot(entry) && entry.slot === runId);
  if (slotIndex < 0) return false;
  const expansion = expandCommitted(state, EXPAND);
  const merged = mergeWithSources(expansion, effectiveStateRows(state.stateRows, null), state);
  const lastSource = merged.sources.at(-1);
  if (lastSource === undefined || lastSource === STATE_SOURCE) return false;
  if (expansion.origins[lastSource] !== slotIndex) return false;
  return canSupersedeMarker(merged.rows, interruption.turn.text);
}
