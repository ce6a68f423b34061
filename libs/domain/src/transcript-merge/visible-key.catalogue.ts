import type { VisibleKey } from './comparison-keys.builder.js';
import { createKeyIndex, keyIndexGet, keyIndexSetIfAbsent, type KeyIndex } from './key.index.js';
import { FUZZY_MAX_KEYS, fuzzyTextsMatch, looseText } from './fuzzy-text.match.js';
import type { Slot } from './timeline.list.js';

/**
 * The sidecar's visible keys with their copy counts: the budget of R4/R10 and the target set of
 * fuzzy visible matching (§2.1). Only sidecar rows are catalogued; appended agent rows never add
 * budget, so a genuinely repeated new row is still appended (R10, R11).
 */

export interface VisibleEntry {
  readonly visible: VisibleKey;
  /** The sidecar rows holding this key, in sidecar order; their count is the replay budget. */
  readonly holders: Slot[];
  /** Agent rows already consumed against this key (by prefix replay or the budget step). */
  skips: number;
  loose: string | undefined;
}

export interface VisibleCatalogue {
  readonly entries: KeyIndex<VisibleEntry>;
  readonly size: number;
  readonly byRole: ReadonlyMap<string, readonly VisibleEntry[]>;
}

export function buildVisibleCatalogue(rows: readonly { readonly visible: VisibleKey; readonly slot: Slot }[]): VisibleCatalogue {
  const entries = createKeyIndex<VisibleEntry>();
  const byRole = new Map<string, VisibleEntry[]>();
  let size = 0;
  for (const { visible, slot } of rows) {
    const known = keyIndexGet(entries, visible);
    if (known !== undefined) {
      known.holders.push(slot);
      continue;
    }
    const entry: VisibleEntry = { visible, holders: [slot], skips: 0, loose: undefined };
    keyIndexSetIfAbsent(entries, visible, entry);
    size += 1;
    const sameRole = byRole.get(visible.role);
    if (sameRole === undefined) byRole.set(visible.role, [entry]);
    else sameRole.push(entry);
  }
  return { entries, size, byRole };
}

/** R18: above FUZZY_MAX_KEYS distinct sidecar keys only exact matching is used. */
export function fuzzyAllowed(catalogue: VisibleCatalogue): boolean {
  return catalogue.size <= FUZZY_MAX_KEYS;
}

/** A candidate visible key with its loose text computed at most once. */
export interface VisibleProbe {
  readonly visible: VisibleKey;
  loose: string | undefined;
}

export function probeOf(visible: VisibleKey): VisibleProbe {
  return { visible, loose: undefined };
}

/**
 * Same role, same api component, and fuzzy texts (§2.1 step 2). The tool-calls part of the visible key is not
 * compared here: the reference scans keys by role and api only.
 */
export function fuzzyVisibleMatch(probe: VisibleProbe, entry: VisibleEntry): boolean {
  const candidate = probe.visible;
  if (candidate.role !== entry.visible.role || candidate.api !== entry.visible.api) return false;
  return fuzzyTextsMatch(
    candidate.head,
    entry.visible.head,
    () => (probe.loose ??= looseText(candidate.head)),
    () => (entry.loose ??= looseText(entry.visible.head)),
  );
}

/**
 * The sidecar entry a candidate matches: the exact key first, else the first fuzzy match in sidecar
 * order. Judgment call: Python scans a set (hash order); sidecar order makes the choice reproducible.
 */
export function findVisibleEntry(catalogue: VisibleCatalogue, probe: VisibleProbe): VisibleEntry | null {
  const exact = keyIndexGet(catalogue.entries, probe.visible);
  if (exact !== undefined) return exact;
  if (probe.visible.head.length === 0 || !fuzzyAllowed(catalogue)) return null;
  for (const entry of catalogue.byRole.get(probe.visible.role) ?? []) {
    if (fuzzyVisibleMatch(probe, entry)) return entry;
  }
  return null;
}
