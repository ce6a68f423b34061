import type { InterruptionCause, MessageContent, MessageRow, Role } from '../messages/message-row.js';

type RawRow = { readonly [key: string]: unknown };

const ROLES: ReadonlySet<string> = new Set(['user', 'assistant', 'tool', 'system']);

/** Snake_case string fields of a hermes row and their camelCase names. */
const STRING_FIELDS: readonly (readonly [string, keyof MessageRow])[] = [
  ['tool_call_id', 'toolCallId'],
  ['reasoning', 'reasoning'],
  ['api_content', 'apiContent'],
  ['type', 'type'],
  ['_source', 'source'],
];

/** Hermes' underscored display metadata (§1.1) and its camelCase `meta` key. */
const META_FIELDS: readonly (readonly [string, string])[] = [
  ['_turnDuration', 'turnDuration'],
  ['_turnTps', 'turnTps'],
  ['_turnUsage', 'turnUsage'],
  ['_firstTokenMs', 'firstTokenMs'],
  ['_usedModel', 'usedModel'],
  ['_gatewayRouting', 'gatewayRouting'],
  ['_statusCard', 'statusCard'],
];

function asString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function asContent(value: unknown): MessageContent | undefined {
  if (typeof value === 'string') return value;
  return Array.isArray(value) ? (value as MessageContent) : undefined;
}

/**
 * Maps a row of a session embedded in a journal payload (the worker's snake_case sidecar shape,
 * `_error: true` etc.) to a camelCase MessageRow. Unknown and private keys are left out; null when
 * the value is not a row at all.
 */
export function rowFromEmbeddedMessage(raw: unknown): MessageRow | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const source = raw as RawRow;
  const role = source['role'];
  if (typeof role !== 'string' || !ROLES.has(role)) return null;
  const row: Record<string, unknown> = { role: role as Role };
  const content = asContent(source['content']);
  if (content !== undefined) row['content'] = content;
  const timestamp = source['timestamp'];
  if (typeof timestamp === 'number' && Number.isFinite(timestamp)) row['timestamp'] = timestamp;
  const id = asString(source['id']) ?? asString(source['message_id']);
  if (id !== undefined) row['id'] = id;
  const toolName = asString(source['tool_name']) ?? asString(source['name']);
  if (toolName !== undefined) row['toolName'] = toolName;
  for (const [from, to] of STRING_FIELDS) {
    const value = asString(source[from]);
    if (value !== undefined) row[to] = value;
  }
  if (Array.isArray(source['attachments'])) row['attachments'] = [...source['attachments']];
  if (Array.isArray(source['tool_calls'])) row['toolCalls'] = [...source['tool_calls']];
  if (source['_error'] === true) row['error'] = true;
  if (source['_partial'] === true) row['partial'] = true;
  if (source['_recovered'] === true) row['recovered'] = true;
  const cause = asString(source['interruption_cause']);
  if (cause !== undefined) row['interruptionCause'] = cause as InterruptionCause;
  const meta = Object.fromEntries(
    META_FIELDS.filter(([from]) => source[from] !== undefined && source[from] !== null).map(([from, to]) => [
      to,
      source[from],
    ]),
  );
  if (Object.keys(meta).length > 0) row['meta'] = meta;
  return row as unknown as MessageRow;
}
