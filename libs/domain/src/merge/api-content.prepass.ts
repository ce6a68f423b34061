import type { MessageRow } from '../messages/message-row.js';
import { withApiContent } from './display-meta.backfill.js';
import { mirrorTextOf } from './native-image.mirror.js';
import { apiContentOf, contentStringOf, hasInvalidTimestamp, readRowId, secondOf, stableIdOf, timestampOf } from './row-fields.normalizer.js';
import { stripWorkspacePrefix, ws } from './text.normalizer.js';

/**
 * Reference §2.2: before any merge, provider bytes (`apiContent`) of agent-store user/assistant rows
 * are attached to the sidecar rows they belong to, so both sides then carry the same +api key part.
 * Tiers run in order, each pairing only mutually unique compatible rows, never by list position.
 */

interface Party {
  readonly row: MessageRow;
  readonly id: string | null;
  readonly rowId: number | null;
  readonly ts: number | null;
  /** Visible-content keys; a rich user row also answers to its `[screenshot]` mirror text. */
  readonly contentKeys: readonly string[];
}

type Pair = readonly [sidecar: number, state: number];
type GroupKeys = (party: Party) => readonly string[];

function partyOf(row: MessageRow): Party {
  const rowId = readRowId(row);
  const contentKeys: string[] = [];
  if (row.role === 'user' || row.role === 'assistant') {
    const content = contentStringOf(row);
    contentKeys.push(`${row.role}\u241f${row.role === 'user' ? stripWorkspacePrefix(content) : ws(content)}`);
  }
  const mirror = mirrorTextOf(row);
  if (mirror !== null) contentKeys.push(`user\u241f${mirror}`);
  return { row, id: stableIdOf(row), rowId: rowId.kind === 'valid' ? rowId.value : null, ts: timestampOf(row), contentKeys };
}

/** Invalid provenance (bad row id, non-finite timestamp) is consumed up front and never matched. */
function hasValidProvenance(row: MessageRow): boolean {
  return readRowId(row).kind !== 'invalid' && !hasInvalidTimestamp(row);
}

/** "Compatible" of §2.2, also used by the row-id fast path of the merge ladder. */
export function rowsCompatible(sidecarRow: MessageRow, stateRow: MessageRow): boolean {
  return compatible(partyOf(sidecarRow), partyOf(stateRow));
}

function compatible(s: Party, t: Party): boolean {
  if (s.id !== null && t.id !== null && s.id !== t.id) return false;
  if (s.rowId !== null && t.rowId !== null && s.rowId !== t.rowId) return false;
  return t.contentKeys.some((key) => s.contentKeys.includes(key));
}

const withContent = (party: Party, prefix: string | null): readonly string[] =>
  prefix === null ? [] : party.contentKeys.map((key) => `${prefix}\u241f${key}`);

const TIER_STABLE_ID: GroupKeys = (p) => (p.id === null ? [] : [p.id]);
const TIER_ROW_ID: GroupKeys = (p) => (p.rowId === null ? [] : [String(p.rowId)]);
const TIER_EXACT_TIME: GroupKeys = (p) => withContent(p, p.ts === null ? null : String(p.ts));
const TIER_SAME_SECOND: GroupKeys = (p) => withContent(p, p.ts === null ? null : secondOf(p.row));
const TIER_CONTENT_ONLY: GroupKeys = (p) => p.contentKeys;

export function attachApiContentFromState(sidecar: readonly MessageRow[], state: readonly MessageRow[]): MessageRow[] {
  const candidates = state.filter((row) => (row.role === 'user' || row.role === 'assistant') && apiContentOf(row) !== null);
  if (candidates.length === 0 || sidecar.length === 0) return sidecar.slice();
  const s = sidecar.map(partyOf);
  const t = candidates.map(partyOf);
  const openS = new Set(s.flatMap((p, i) => (hasValidProvenance(p.row) ? [i] : [])));
  const openT = new Set(t.flatMap((p, i) => (hasValidProvenance(p.row) ? [i] : [])));
  const pairs: Pair[] = [];
  const take = (found: readonly Pair[]): void => {
    for (const pair of found) {
      openS.delete(pair[0]);
      openT.delete(pair[1]);
      pairs.push(pair);
    }
  };
  take(pairTier(s, t, openS, openT, TIER_STABLE_ID));
  quarantineDuplicateRowIds(s, t, openS, openT);
  const byRowId = pairTier(s, t, openS, openT, TIER_ROW_ID);
  for (const pair of byRowId) {
    const [sApi, tApi] = [apiContentOf(s[pair[0]]!.row), apiContentOf(t[pair[1]]!.row)];
    if (sApi !== null && tApi !== null && sApi !== tApi) {
      openS.delete(pair[0]);
      openT.delete(pair[1]);
    } else take([pair]);
  }
  take(pairTier(s, t, openS, openT, TIER_EXACT_TIME));
  take(pairTier(s, t, openS, openT, TIER_SAME_SECOND));
  take(pairTier(s, t, openS, openT, TIER_CONTENT_ONLY, (a, b) => a.ts === null || b.ts === null));
  const result = sidecar.slice();
  for (const [si, ti] of pairs) result[si] = withApiContent(result[si]!, t[ti]!.row);
  return result;
}

/** A row id held twice on either side can identify nothing: every row carrying it leaves the pre-pass. */
function quarantineDuplicateRowIds(s: readonly Party[], t: readonly Party[], openS: Set<number>, openT: Set<number>): void {
  const duplicated = new Set<number>();
  for (const [parties, open] of [[s, openS], [t, openT]] as const) {
    const seen = new Set<number>();
    for (const i of open) {
      const rowId = parties[i]!.rowId;
      if (rowId === null) continue;
      if (seen.has(rowId)) duplicated.add(rowId);
      seen.add(rowId);
    }
  }
  if (duplicated.size === 0) return;
  for (const i of [...openS]) if (duplicated.has(s[i]!.rowId ?? -1)) openS.delete(i);
  for (const i of [...openT]) if (duplicated.has(t[i]!.rowId ?? -1)) openT.delete(i);
}

/** Pairs (s, t) where t's only compatible partner in its group is s, and s's only one is t. */
function pairTier(
  s: readonly Party[],
  t: readonly Party[],
  openS: ReadonlySet<number>,
  openT: ReadonlySet<number>,
  groupKeys: GroupKeys,
  eligible: (sidecar: Party, state: Party) => boolean = () => true,
): Pair[] {
  const filed = new Map<string, number[]>();
  for (const i of openS) {
    for (const key of groupKeys(s[i]!)) {
      const group = filed.get(key);
      if (group === undefined) filed.set(key, [i]);
      else group.push(i);
    }
  }
  const partnersOfT = new Map<number, number[]>();
  const degreeOfS = new Map<number, number>();
  for (const ti of openT) {
    const partners = new Set<number>();
    for (const key of groupKeys(t[ti]!)) {
      for (const si of filed.get(key) ?? []) {
        if (partners.has(si) || !eligible(s[si]!, t[ti]!) || !compatible(s[si]!, t[ti]!)) continue;
        partners.add(si);
        degreeOfS.set(si, (degreeOfS.get(si) ?? 0) + 1);
      }
    }
    partnersOfT.set(ti, [...partners]);
  }
  const pairs: Pair[] = [];
  for (const [ti, partners] of partnersOfT) {
    const si = partners[0];
    if (partners.length === 1 && si !== undefined && degreeOfS.get(si) === 1) pairs.push([si, ti]);
  }
  return pairs;
}
