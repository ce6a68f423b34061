import type { MessageRow } from '../messages/message-row.js';
import { apiContentOf, exactTimestampOf, readRowId, stableIdOf, timestampOf, toolCallsKeyOf } from './row-fields.normalizer.js';
import { isRecord } from '../messages/message-text.js';
import { TextMap } from '../text/text.map.js';
import { stripWorkspacePrefix } from './workspace-prefix.rule.js';
import type { Slot } from './timeline.list.js';

/**
 * R15 (#7230): a rich sidecar user row (text parts plus at least one image part) and the agent
 * store's scalar projection of it, where every image became `[screenshot]`, are the same turn.
 */

const IMAGE_PART_TYPES: ReadonlySet<string> = new Set(['image', 'image_url', 'input_image']);
const SCREENSHOT = '[screenshot]';

function isUserRole(row: MessageRow): boolean {
  return String(row.role).trim().toLowerCase() === 'user';
}

/**
 * The scalar text a rich user row projects to, or null if the row is not rich, in the prefix-stripped form
 * the state side is compared in (R2): a text part that carries the model-facing `[Workspace::v1: …]` prefix
 * (and an `[Attached files: …]` note, kept as text) still pairs with its agent-store projection, whose
 * content is that text plus `\n[screenshot]` per image. Judgment call: a list with any part that is neither
 * text nor image is not treated as a mirror candidate.
 */
export function mirrorTextOf(row: MessageRow): string | null {
  if (!Array.isArray(row.content) || !isUserRole(row)) return null;
  const pieces: string[] = [];
  let images = 0;
  for (const part of row.content as readonly unknown[]) {
    const type = isRecord(part) ? part['type'] : undefined;
    if (type === 'text' && isRecord(part) && typeof part['text'] === 'string') pieces.push(part['text']);
    else if (typeof type === 'string' && IMAGE_PART_TYPES.has(type)) {
      pieces.push(SCREENSHOT);
      images += 1;
    } else return null;
  }
  return images > 0 ? stripWorkspacePrefix(pieces.join('\n')) : null;
}

function mirrorKey(row: MessageRow, text: string): string {
  const parts = [text, exactTimestampOf(row), row.toolCallId ?? '', row.toolName ?? '', toolCallsKeyOf(row)];
  return JSON.stringify(parts);
}

/** The key of a rich sidecar row; requires an exact timestamp to pair on. */
export function sidecarMirrorKey(row: MessageRow): string | null {
  const text = mirrorTextOf(row);
  return text === null || timestampOf(row) === null ? null : mirrorKey(row, text);
}

/** The key of a scalar agent-store user row, compared in its prefix-stripped state form (R2). */
export function stateMirrorKey(row: MessageRow): string | null {
  if (!isUserRole(row) || typeof row.content !== 'string' || timestampOf(row) === null) return null;
  return mirrorKey(row, stripWorkspacePrefix(row.content));
}

/** A state row's private identity; matching state rows with different identities make a pairing ambiguous. */
export function privateIdentityOf(row: MessageRow): string {
  const rowId = readRowId(row);
  return JSON.stringify([stableIdOf(row), rowId.kind === 'valid' ? rowId.value : rowId.kind, apiContentOf(row)]);
}

/** True when ids, row ids or provider bytes contradict each other; an invalid row id always does. */
export function identitiesConflict(kept: MessageRow, candidate: MessageRow): boolean {
  const keptId = stableIdOf(kept);
  const candidateId = stableIdOf(candidate);
  if (keptId !== null && candidateId !== null && keptId !== candidateId) return true;
  const keptRowId = readRowId(kept);
  const candidateRowId = readRowId(candidate);
  if (keptRowId.kind === 'invalid' || candidateRowId.kind === 'invalid') return true;
  if (keptRowId.kind === 'valid' && candidateRowId.kind === 'valid' && keptRowId.value !== candidateRowId.value) return true;
  const keptApi = apiContentOf(kept);
  const candidateApi = apiContentOf(candidate);
  return keptApi !== null && candidateApi !== null && keptApi !== candidateApi;
}

/** Rich sidecar rows by mirror key (null = two rows share it), and the keys whose state matches disagree. */
export interface MirrorIndex {
  readonly bySidecarKey: TextMap<Slot | null>;
  readonly ambiguousStateKeys: TextMap<true>;
}

export function buildMirrorIndex(sidecar: readonly Slot[], state: readonly MessageRow[]): MirrorIndex {
  const bySidecarKey = new TextMap<Slot | null>();
  for (const slot of sidecar) {
    const key = sidecarMirrorKey(slot.row);
    if (key !== null) bySidecarKey.set(key, bySidecarKey.has(key) ? null : slot);
  }
  const identities = new TextMap<string>();
  const ambiguousStateKeys = new TextMap<true>();
  if (bySidecarKey.size === 0) return { bySidecarKey, ambiguousStateKeys };
  for (const row of state) {
    const key = stateMirrorKey(row);
    if (key === null || !bySidecarKey.has(key)) continue;
    const identity = privateIdentityOf(row);
    const first = identities.get(key);
    if (first === undefined) identities.set(key, identity);
    else if (first !== identity) ambiguousStateKeys.set(key, true);
  }
  return { bySidecarKey, ambiguousStateKeys };
}

/** The rich sidecar row a scalar state row unambiguously mirrors, if any. */
export function mirrorPartnerOf(index: MirrorIndex, row: MessageRow): Slot | null {
  if (index.bySidecarKey.size === 0) return null;
  const key = stateMirrorKey(row);
  if (key === null || index.ambiguousStateKeys.has(key)) return null;
  const slot = index.bySidecarKey.get(key) ?? null;
  return slot !== null && !identitiesConflict(slot.row, row) ? slot : null;
}
