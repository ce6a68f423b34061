import { type MessageRow, rowFromEmbeddedMessage } from '#domain';

type Raw = { readonly [key: string]: unknown };

/** The private aliases hermes uses for the agent store's durable row id (reference §2.5 R16). */
const ROW_ID_ALIASES = ['_state_db_row_id', '_row_id', '_db_row_id', 'state_db_row_id'] as const;

/** Display metadata the shared embedded-row mapper does not carry over yet, with their `meta` names. */
const EXTRA_META: readonly (readonly [string, string])[] = [
  ['_anchor_stream_id', 'anchorStreamId'],
  ['_anchor_activity_scene', 'anchorActivityScene'],
  ['_media_snapshots', 'mediaSnapshots'],
];

export type RowMapping = { readonly row: MessageRow } | { readonly problem: string };

const isRecord = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The one durable row id a row names through its aliases; `undefined` when none or when two aliases disagree
 * (invalid provenance: the row then carries no row id at all, as no merge tier may match on it).
 */
function rowIdOf(raw: Raw): number | undefined {
  const ids = new Set<number>();
  for (const alias of ROW_ID_ALIASES) {
    const value = raw[alias];
    const id = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) ids.add(id);
    else if (value !== undefined && value !== null) return undefined;
  }
  return ids.size === 1 ? [...ids][0] : undefined;
}

/** OpenAI-style `{type:"image_url", image_url:{url}}` parts become the contract's `imageUrl`. */
function contractContent(content: MessageRow['content']): MessageRow['content'] {
  if (!Array.isArray(content)) return content;
  return content.map((part: Raw) => {
    if (part['type'] !== 'image_url' || part['imageUrl'] !== undefined || !isRecord(part['image_url'])) return part;
    const { image_url: imageUrl, ...rest } = part;
    return { ...rest, imageUrl };
  }) as unknown as MessageRow['content'];
}

/**
 * A sidecar `messages` row (snake_case, underscored private fields) as the contract's MessageRow: `_error` →
 * `error`, `tool_calls` → `toolCalls`, `_recovered` → `recovered`, `api_content` → `apiContent`, the run-journal
 * provenance, the row id aliases → `rowId`, display metadata → `meta`. Unknown and bookkeeping keys (retry
 * counters, turn tokens) are left out. A row without a contract role is a problem, never a guess.
 */
export function mapSidecarRow(raw: unknown): RowMapping {
  if (!isRecord(raw)) return { problem: 'not an object' };
  const base = rowFromEmbeddedMessage(raw);
  if (base === null) return { problem: `role ${JSON.stringify(raw['role'] ?? null)} is not user, assistant, tool or system` };
  const row: Record<string, unknown> = { ...base };
  if (base.content !== undefined) row['content'] = contractContent(base.content);
  const rowId = rowIdOf(raw);
  if (rowId !== undefined) row['rowId'] = rowId;
  if (Array.isArray(raw['_partial_tool_calls'])) row['partialToolCalls'] = [...raw['_partial_tool_calls']];
  if (raw['_recovered_from_run_journal'] === true) row['recoveredFromRunJournal'] = true;
  if (typeof raw['_recovered_stream_id'] === 'string') row['recoveredRunId'] = raw['_recovered_stream_id'];
  if (typeof raw['_recovered_event_id'] === 'string') row['recoveredEventId'] = raw['_recovered_event_id'];
  const extra = EXTRA_META.filter(([from]) => raw[from] !== undefined && raw[from] !== null);
  if (extra.length > 0) row['meta'] = { ...(base.meta ?? {}), ...Object.fromEntries(extra.map(([from, to]) => [to, raw[from]])) };
  return { row: row as unknown as MessageRow };
}
