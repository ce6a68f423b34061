import type { MessageRow } from '../messages/message-row.js';
import { withApiContent } from './display-meta.backfill.js';
import { mirrorTextOf } from './native-image.mirror.js';
import { apiContentOf, contentStringOf, hasInvalidTimestamp, readRowId, secondOf, stableIdOf, timestampOf } from './row-fields.normalizer.js';
import { TextMap } from '../text/text.map.js';
import { stripWorkspacePrefix } from './workspace-prefix.rule.js';
import { withTextMemo, ws } from '../text/whitespace.js';

/**
 * Reference §2.2: before any merge, provider bytes (`apiContent`) of agent-store user/assistant rows
 * are attached to the sidecar rows they belong to, so both sides then carry the same +api key part.
 * Tiers run in order, each pairing only mutually unique compatible rows, never by list position.
 *
 * Every tier files the open rows of each side once, in a Map keyed by the tier key joined with an
 * interned pairing-text id, so a lookup only meets rows that already share the tier key and the
 * text; a group with many rows answers through id / row-id sub-indexes instead of a scan, so
 * repeated content (empty tool-call rows, "OK") cannot make a tier quadratic.
 */

/**
 * What the pre-pass pairs rows by besides the tier key (reference §2.2 "visible content"): role (user or
 * assistant) and normalised text. Not the content key of the merge (comparison-keys.builder.ts).
 */
interface PairingText {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

/** A row's stable id and valid durable row id (null = absent). */
interface Identity {
  readonly id: string | null;
  readonly rowId: number | null;
}

interface Party extends Identity {
  readonly row: MessageRow;
  readonly ts: number | null;
  /** Interned pairing texts; a rich user row also answers to its `[screenshot]` mirror text. */
  readonly texts: readonly number[];
}

type Pair = readonly [sidecar: number, state: number];

/** The pairing texts of a row: user text prefix-stripped (either side), assistant text ws'd, plus the mirror. */
function pairingTextsOf(row: MessageRow): PairingText[] {
  const keys: PairingText[] = [];
  if (row.role === 'user' || row.role === 'assistant') {
    const content = contentStringOf(row);
    keys.push({ role: row.role, text: row.role === 'user' ? stripWorkspacePrefix(content) : ws(content) });
  }
  const mirror = mirrorTextOf(row);
  if (mirror !== null) keys.push({ role: 'user', text: mirror });
  return keys;
}

/** Pairing texts → small integers, one table per pre-pass, so tier keys stay short strings. */
class PairingTextIds {
  private readonly byRole = { user: new TextMap<number>(), assistant: new TextMap<number>() };
  private next = 0;

  idOf(key: PairingText): number {
    const table = this.byRole[key.role];
    let id = table.get(key.text);
    if (id === undefined) table.set(key.text, (id = this.next++));
    return id;
  }
}

function identityOf(row: MessageRow): Identity {
  const rowId = readRowId(row);
  return { id: stableIdOf(row), rowId: rowId.kind === 'valid' ? rowId.value : null };
}

function partyOf(row: MessageRow, ids: PairingTextIds): Party {
  const { id, rowId } = identityOf(row);
  const texts = pairingTextsOf(row).map((key) => ids.idOf(key));
  return { row, id, rowId, ts: timestampOf(row), texts };
}

/** Invalid provenance (bad row id, non-finite timestamp) is consumed up front and never matched. */
function hasValidProvenance(row: MessageRow): boolean {
  return readRowId(row).kind !== 'invalid' && !hasInvalidTimestamp(row);
}

/** Stable ids and durable row ids do not contradict each other (either side may lack one). */
function identitiesAgree(a: Identity, b: Identity): boolean {
  if (a.id !== null && b.id !== null && a.id !== b.id) return false;
  return a.rowId === null || b.rowId === null || a.rowId === b.rowId;
}

/** "Compatible" of §2.2 (identities agree, a pairing text is shared), also used by the row-id fast path of the ladder. */
export function rowsCompatible(sidecarRow: MessageRow, stateRow: MessageRow): boolean {
  if (!identitiesAgree(identityOf(sidecarRow), identityOf(stateRow))) return false;
  const sidecarKeys = pairingTextsOf(sidecarRow);
  return pairingTextsOf(stateRow).some((t) => sidecarKeys.some((s) => s.role === t.role && s.text === t.text));
}

/**
 * A tier: its key for one pairing-text id of a party (null = the party takes no part), and whether a
 * pair needs at least one side without a timestamp (tier 5).
 */
interface Tier {
  readonly key: (party: Party, text: number) => string | null;
  readonly oneSideUntimed: boolean;
}

const SEP = '\u241f';
const TIER_STABLE_ID: Tier = { key: (p, c) => (p.id === null ? null : `${c}${SEP}${p.id}`), oneSideUntimed: false };
const TIER_ROW_ID: Tier = { key: (p, c) => (p.rowId === null ? null : `${c}${SEP}${p.rowId}`), oneSideUntimed: false };
const TIER_EXACT_TIME: Tier = { key: (p, c) => (p.ts === null ? null : `${c}${SEP}${String(p.ts)}`), oneSideUntimed: false };
const TIER_SAME_SECOND: Tier = { key: (p, c) => (p.ts === null ? null : `${c}${SEP}${secondOf(p.row)}`), oneSideUntimed: false };
const TIER_CONTENT_ONLY: Tier = { key: (_p, c) => String(c), oneSideUntimed: true };

export function attachApiContentFromState(sidecar: readonly MessageRow[], state: readonly MessageRow[]): MessageRow[] {
  return withTextMemo(() => attachByTiers(sidecar, state));
}

function attachByTiers(sidecar: readonly MessageRow[], state: readonly MessageRow[]): MessageRow[] {
  const candidates = state.filter((row) => (row.role === 'user' || row.role === 'assistant') && apiContentOf(row) !== null);
  if (candidates.length === 0 || sidecar.length === 0) return sidecar.slice();
  const ids = new PairingTextIds();
  const s = sidecar.map((row) => partyOf(row, ids));
  const t = candidates.map((row) => partyOf(row, ids));
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
  take(pairTier(s, t, openS, openT, TIER_CONTENT_ONLY));
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

/**
 * Pairs (s, t) where t's only compatible partner is s, and s's only one is t. Only the partner count
 * up to two matters, so each side is filed once and each lookup stops at the second partner.
 */
function pairTier(s: readonly Party[], t: readonly Party[], openS: ReadonlySet<number>, openT: ReadonlySet<number>, tier: Tier): Pair[] {
  if (openS.size === 0 || openT.size === 0) return [];
  const sidecarFiling = fileParties(s, openS, tier);
  if (sidecarFiling.all.size === 0) return [];
  let stateFiling: Filing | null = null;
  const pairs: Pair[] = [];
  for (const ti of openT) {
    const partners = partnersOf(t[ti]!, s, sidecarFiling, tier);
    if (partners.length !== 1) continue;
    const si = partners[0]!;
    stateFiling ??= fileParties(t, openT, tier);
    // ti is one of si's partners, so a count of one means it is the only one.
    if (partnersOf(s[si]!, t, stateFiling, tier).length === 1) pairs.push([si, ti]);
  }
  return pairs;
}

/** Rows sharing one tier key (tier value and pairing text); they differ only in ids and row ids. */
class Group {
  private subIndex: SubIndex | null = null;

  constructor(readonly members: number[]) {}

  /** Appends to `found` (distinct, at most two) the members whose ids and row ids agree with `party`'s. */
  collect(parties: readonly Party[], party: Party, found: number[]): void {
    if (this.members.length <= SCAN_LIMIT) {
      for (const m of this.members) {
        if (!found.includes(m) && identitiesAgree(parties[m]!, party) && found.push(m) >= 2) return;
      }
      return;
    }
    this.subIndex ??= buildSubIndex(parties, this.members);
    for (const list of this.subIndex.agreeingWith(party)) {
      for (const m of list) if (!found.includes(m) && found.push(m) >= 2) return;
    }
  }
}

/** Up to this many members a group is scanned; a larger one builds its id / row-id sub-indexes. */
const SCAN_LIMIT = 8;

/** A tier key's rows: a lone row as its index (most keys), a Group once the key is shared. */
type Filed = number | Group;

interface Filing {
  /** Every open party of the side, by tier key. */
  readonly all: Map<string, Filed>;
  /** Tier 5 only: the open parties without a timestamp, the only partners of a timed party. */
  readonly untimed: Map<string, Filed>;
}

function fileParties(parties: readonly Party[], open: ReadonlySet<number>, tier: Tier): Filing {
  const filing: Filing = { all: new Map(), untimed: new Map() };
  const file = (map: Map<string, Filed>, key: string, i: number): void => {
    const filed = map.get(key);
    if (filed === undefined) map.set(key, i);
    else if (typeof filed === 'number') map.set(key, new Group([filed, i]));
    else filed.members.push(i);
  };
  for (const i of open) {
    const party = parties[i]!;
    for (const text of party.texts) {
      const key = tier.key(party, text);
      if (key === null) continue;
      file(filing.all, key, i);
      if (tier.oneSideUntimed && party.ts === null) file(filing.untimed, key, i);
    }
  }
  return filing;
}

/** The other side's open parties compatible with `party` in this tier: none, one, or (the first) two. */
function partnersOf(party: Party, others: readonly Party[], filing: Filing, tier: Tier): number[] {
  const found: number[] = [];
  const groups = tier.oneSideUntimed && party.ts !== null ? filing.untimed : filing.all;
  for (const text of party.texts) {
    const key = tier.key(party, text);
    const filed = key === null ? undefined : groups.get(key);
    if (filed === undefined) continue;
    if (typeof filed !== 'number') filed.collect(others, party, found);
    else if (!found.includes(filed) && identitiesAgree(others[filed]!, party)) found.push(filed);
    if (found.length >= 2) break;
  }
  return found;
}

/**
 * A large group's members by stable id and by row id (null = absent), so the members agreeing with a
 * party come as whole lists: absent or equal id, and absent or equal row id.
 */
interface SubIndex {
  agreeingWith(party: Party): readonly (readonly number[])[];
}

const NONE: readonly number[] = [];

function buildSubIndex(parties: readonly Party[], members: readonly number[]): SubIndex {
  const byId = new Map<string | null, number[]>();
  const byRowId = new Map<number | null, number[]>();
  const byBoth = new Map<string, number[]>();
  const cell = (id: string | null, rowId: number | null): string => `${id === null ? '-' : `+${id}`}${SEP}${rowId ?? '-'}`;
  const add = <K>(map: Map<K, number[]>, key: K, m: number): void => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [m]);
    else list.push(m);
  };
  for (const m of members) {
    const { id, rowId } = parties[m]!;
    add(byId, id, m);
    add(byRowId, rowId, m);
    add(byBoth, cell(id, rowId), m);
  }
  return {
    agreeingWith: ({ id, rowId }) => {
      if (id === null && rowId === null) return [members];
      if (rowId === null) return [byId.get(null) ?? NONE, byId.get(id) ?? NONE];
      if (id === null) return [byRowId.get(null) ?? NONE, byRowId.get(rowId) ?? NONE];
      return [cell(null, null), cell(null, rowId), cell(id, null), cell(id, rowId)].map((key) => byBoth.get(key) ?? NONE);
    },
  };
}
