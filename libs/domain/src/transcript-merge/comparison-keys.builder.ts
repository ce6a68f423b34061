import type { MessageRow } from '../messages/message-row.js';
import {
  apiContentOf,
  contentStringOf,
  exactTimestampOf,
  secondOf,
  stableIdOf,
  timestampOf,
  toolCallsKeyOf,
} from './row-fields.normalizer.js';
import { stripWorkspacePrefix } from './workspace-prefix.rule.js';
import { ws } from '../text/whitespace.js';

/**
 * The four comparison keys of the merge (reference §2.1, where they are K1 to K4), each called by this one name
 * everywhere: the merge key, the dedup key, the content key and the visible key.
 */

/** Which list a row came from: only agent-store (`state`) user rows get the workspace prefix stripped. */
export type Side = 'sidecar' | 'state';

/**
 * A comparison key in three parts: `head` is the long text (hashed once as it is), `tail` a short
 * composite of the other fields, `api` the +api component (provider bytes, often as long as the
 * text, so kept apart rather than copied into the tail). Two keys are equal iff all parts are;
 * `keyString` joins them.
 */
export interface KeyParts {
  readonly head: string;
  readonly tail: string;
  readonly api: string | null;
}

/** The visible key, with the part fuzzy matching needs (head = visible text). */
export interface VisibleKey extends KeyParts {
  readonly role: string;
}

/** Length-prefixed parts, so no choice of text can make two different tuples collide. */
function compose(tag: string, parts: readonly string[]): string {
  let key = tag;
  for (const part of parts) key += field(part);
  return key;
}

const apiSuffix = (api: string | null): string => (api === null ? '' : `\u241fapi${api.length}:${api}`);

const field = (part: string): string => `\u241f${part.length}:${part}`;

const ROLES = ['user', 'assistant', 'tool', 'system'] as const;
const constantTails = (tag: string, blanks: number): ReadonlyMap<string, string> =>
  new Map(ROLES.map((role) => [role, compose(tag, [role, ...Array<string>(blanks).fill('')])]));
/** The tails of rows without tool fields (most rows), built once. */
const PLAIN_CONTENT_TAILS = constantTails('content', 2);
const PLAIN_VISIBLE_TAILS = constantTails('visible', 1);

/** The key as one string (the tail with its +api component, then the head). */
export function keyString(key: KeyParts): string {
  return `${key.tail}${apiSuffix(key.api)}\u241e${key.head}`;
}

export function sameKey(a: KeyParts, b: KeyParts): boolean {
  return a.head === b.head && a.tail === b.tail && a.api === b.api;
}

/** ws(content), and for agent-store user rows the workspace-prefix-stripped form (R2). */
export function visibleTextOf(row: MessageRow, side: Side): string {
  const content = contentStringOf(row);
  return side === 'state' && row.role === 'user' ? stripWorkspacePrefix(content) : ws(content);
}

/**
 * The merge key with `time` = second(ts), the dedup key with the exact timestamp. `keyed` (if given) caches the
 * tool-calls JSON shared by the merge, dedup and visible keys.
 */
function mergeOrDedupKeyParts(row: MessageRow, time: string, keyed: KeyedRow | null): KeyParts {
  const id = stableIdOf(row);
  const api = apiContentOf(row);
  if (id !== null) return { head: id, tail: 'id', api };
  // Spelled out (no parts array): this runs for every row of both sides once indexes are needed.
  let tail = `legacy${field(row.role)}${field(time)}${field(row.toolCallId ?? '')}${field(row.toolName ?? '')}`;
  tail += field(keyed === null ? toolCallsKeyOf(row) : callsOf(keyed));
  return { head: contentStringOf(row), tail, api };
}

function contentKeyParts(row: MessageRow, text: string): KeyParts {
  const api = apiContentOf(row);
  const toolCallId = row.toolCallId ?? '';
  const toolName = row.toolName ?? '';
  const plain = toolCallId === '' && toolName === '' ? PLAIN_CONTENT_TAILS.get(row.role) : undefined;
  return { head: text, tail: plain ?? compose('content', [row.role, toolCallId, toolName]), api };
}

function visibleKeyParts(row: MessageRow, text: string, calls: string): VisibleKey {
  const api = apiContentOf(row);
  const plain = calls === '' ? PLAIN_VISIBLE_TAILS.get(row.role) : undefined;
  return { head: text, tail: plain ?? compose('visible', [row.role, calls]), api, role: row.role };
}

/** The merge key: the stable id if any, else role/raw content/second(ts)/tool fields; +api. */
export function mergeKey(row: MessageRow): string {
  return keyString(mergeOrDedupKeyParts(row, secondOf(row), null));
}

/** The dedup key: the merge key with the exact timestamp instead of second(ts). */
export function dedupKey(row: MessageRow): string {
  return keyString(mergeOrDedupKeyParts(row, exactTimestampOf(row), null));
}

/** The content key: role, visible text, tool_call_id, tool name; +api. */
export function contentKey(row: MessageRow, side: Side): string {
  return keyString(contentKeyParts(row, visibleTextOf(row, side)));
}

/** The visible key: role, visible text, tool_calls JSON (tool_call_id is NOT part of it); +api. */
export function visibleKey(row: MessageRow, side: Side): string {
  return keyString(visibleKeyParts(row, visibleTextOf(row, side), toolCallsKeyOf(row)));
}

/** A row with its keys computed on first use: a replayed agent row only ever needs its visible and dedup keys. */
export interface KeyedRow {
  readonly row: MessageRow;
  readonly side: Side;
  readonly ts: number | null;
  readonly idKeyed: boolean;
  text?: string;
  calls?: string;
  mergeKey?: KeyParts;
  dedupKey?: KeyParts;
  contentKey?: KeyParts;
  visibleKey?: VisibleKey;
}

export function keyRow(row: MessageRow, side: Side): KeyedRow {
  return { row, side, ts: timestampOf(row), idKeyed: stableIdOf(row) !== null };
}

export const textOf = (r: KeyedRow): string => (r.text ??= visibleTextOf(r.row, r.side));
const callsOf = (r: KeyedRow): string => (r.calls ??= toolCallsKeyOf(r.row));
export const mergeKeyOf = (r: KeyedRow): KeyParts => (r.mergeKey ??= mergeOrDedupKeyParts(r.row, secondOf(r.row), r));
export const dedupKeyOf = (r: KeyedRow): KeyParts => (r.dedupKey ??= mergeOrDedupKeyParts(r.row, exactTimestampOf(r.row), r));
export const contentKeyOf = (r: KeyedRow): KeyParts => (r.contentKey ??= contentKeyParts(r.row, textOf(r)));
export const visibleKeyOf = (r: KeyedRow): VisibleKey => (r.visibleKey ??= visibleKeyParts(r.row, textOf(r), callsOf(r)));
