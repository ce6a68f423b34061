import { chainLink } from './event-hash.js';
import type { PendingAppend } from './append-batch.outcomes.js';
import type { KnownHead } from './known-heads.js';
import type { FusedStatement } from './event-store.js';

/** The values of the append function's call (migration 1764500004000, replaced by 1764500006000): `FUNCTION_CTES`. */
export function appendBatchValues(items: readonly PendingAppend[]): unknown[] {
  return [
    items.map((i) => i.streamId),
    items.map((i) => i.expected),
    items.map((i) => i.events.length),
    items.flatMap((i) => i.events.map((e) => e.type)),
    items.flatMap((i) => i.canon),
    items.flatMap((i) => i.meta),
    items.map((i) => i.keys.length),
    items.flatMap((i) => i.keys),
  ];
}

/**
 * The append when the process knows every stream's head: the chain links were computed here, from the head
 * the item states (`prev_version`, `prev_hash`), so PostgreSQL only checks that head under the row lock
 * (taken in stream-id order, as the function does) and writes. A stream whose head moved, or whose hash is
 * not the one assumed, writes nothing and answers `conflict` with its current version. One set-based
 * statement rather than the function: it saves PL/pgSQL's per-statement work, most of what the function costs
 * more (bench/README.md). Stream ids must be distinct within one call.
 */
const KNOWN_HEADS_CTES = `chronicle_item AS (
           SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::text[])
                    WITH ORDINALITY AS i(stream_id, prev_version, prev_hash, next_version, next_hash, n)
         ), chronicle_locked AS (
           SELECT s.stream_id, s.version, s.last_hash FROM streams s
            WHERE s.stream_id = ANY ($1::text[]) ORDER BY s.stream_id FOR UPDATE
         ), chronicle_moved AS (
           UPDATE streams s SET version = i.next_version, last_hash = i.next_hash, updated_at = now()
             FROM chronicle_item i JOIN chronicle_locked l ON l.stream_id = i.stream_id
            WHERE s.stream_id = i.stream_id AND l.version = i.prev_version AND l.last_hash = i.prev_hash
           RETURNING s.stream_id
         ), chronicle_inserted AS (
           INSERT INTO events (stream_id, version, type, data, metadata, hash)
           SELECT i.stream_id, e.version, e.type, e.data, e.meta, e.hash
             FROM ROWS FROM (unnest($6::int[]), unnest($7::bigint[]), jsonb_array_elements_text($8::jsonb),
                             json_array_elements($9::json), jsonb_array_elements($10::jsonb), jsonb_array_elements_text($11::jsonb))
                  AS e(item, version, type, data, meta, hash)
             JOIN chronicle_item i ON i.n = e.item
            WHERE i.stream_id IN (SELECT m.stream_id FROM chronicle_moved m)
           RETURNING events.stream_id, events.version, events.global_position
         ), chronicle_outcome AS (
           SELECT i.n::int AS item,
                  CASE WHEN m.stream_id IS NULL THEN 'conflict' ELSE 'ok' END AS outcome,
                  (CASE WHEN m.stream_id IS NULL THEN coalesce(l.version, 0) ELSE i.next_version END)::text AS version,
                  CASE WHEN m.stream_id IS NULL THEN NULL ELSE i.next_hash END AS last_hash,
                  (SELECT array_agg(x.global_position ORDER BY x.version) FROM chronicle_inserted x WHERE x.stream_id = i.stream_id)::text[] AS positions
             FROM chronicle_item i
             LEFT JOIN chronicle_moved m ON m.stream_id = i.stream_id
             LEFT JOIN chronicle_locked l ON l.stream_id = i.stream_id
         ), appended AS (
           SELECT i.n::int AS item, i.stream_id, i.next_version AS version FROM chronicle_item i JOIN chronicle_moved m ON m.stream_id = i.stream_id
         )`;

const FUNCTION_CTES = `chronicle_outcome AS (
           SELECT item, outcome, version::text AS version, last_hash, positions::text[] AS positions
             FROM chronicle_append_batch($1, $2, $3, $4, $5, $6, $7, $8)
         ), appended AS (
           SELECT o.item, ($1::text[])[o.item] AS stream_id, o.version::bigint AS version FROM chronicle_outcome o WHERE o.outcome = 'ok'
         )`;

/**
 * Renumbers the `$n` placeholders of a fused statement by `offset`, skipping what is not SQL code: '…' strings
 * ('' inside), E'…' strings (backslash escapes), "…" identifiers, line and block comments. Dollar quoting is
 * refused, and so is a placeholder outside 1…`valueCount`: a statement's `$2` that declared one value would
 * otherwise be bound, silently, to the next statement's first value.
 */
export function shiftPlaceholders(text: string, offset: number, valueCount: number): string {
  let out = '';
  let i = 0;
  const copyUntil = (end: number) => {
    out += text.slice(i, end);
    i = end;
  };
  const refuse = (why: string): never => {
    throw new Error(`a fused statement ${why}: ${text}`);
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      copyUntil(end < 0 ? text.length : end);
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) refuse('holds an unterminated comment');
      copyUntil(end + 2);
    } else if (c === "'" || c === '"') {
      const escapes = c === "'" && /[eE]/.test(text[i - 1] ?? '') && !/[A-Za-z0-9_]/.test(text[i - 2] ?? '');
      let j = i + 1;
      for (; j < text.length; j += 1) {
        if (escapes && text[j] === '\\') j += 1;
        else if (text[j] === c) {
          if (text[j + 1] === c) j += 1;
          else break;
        }
      }
      if (j >= text.length) refuse(`holds an unterminated ${c === '"' ? 'identifier' : 'string'}`);
      copyUntil(j + 1);
    } else if (c === '$') {
      const match = /^\$(\d+)/.exec(text.slice(i, i + 12));
      if (!match) refuse('may hold $ only in placeholders (no dollar quoting)');
      const n = Number(match![1]);
      if (n < 1 || n > valueCount) refuse(`uses $${n} but declares ${valueCount} value(s)`);
      out += `$${n + offset}`;
      i += match![0].length;
    } else {
      copyUntil(i + 1);
    }
  }
  return out;
}

/** Values each variant's own statement takes before the fused statements' values. */
export const APPEND_VALUE_COUNT = { 'known-heads': 11, function: 8 } as const;

/**
 * The append statement of one variant with the fused projections' statements as CTEs `fused_1…`: one
 * statement, so one implicit transaction and one round trip for the batch. The append's own CTEs are named
 * `chronicle_…` and the one a fused statement reads is `appended`, the same in both variants. A CTE that only
 * reads (a SELECT) runs only when referenced, and an inlined one only as far as its reader needs (a count would
 * skip its expressions): each is MATERIALIZED, and the final SELECT counts its rows (one row out of each,
 * joined once).
 */
export function composeAppend(variant: 'known-heads' | 'function', fused: readonly FusedStatement[], relaxed = false): string {
  let offset = APPEND_VALUE_COUNT[variant];
  const ctes = fused.map((statement, k) => {
    const text = `fused_${k + 1} AS MATERIALIZED (${shiftPlaceholders(statement.text, offset, statement.valueCount)})`;
    offset += statement.valueCount;
    return text;
  });
  // A relaxed batch's statement turns synchronous_commit off for its own (implicit) transaction: the commit
  // that follows it is acknowledged before it is flushed, and the batch is still one statement, one round trip.
  if (relaxed) ctes.push(`relaxed AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true))`);
  const joins = [...fused.map((_, k) => `fused_${k + 1}`), ...(relaxed ? ['relaxed'] : [])]
    .map((cte, k) => ` CROSS JOIN (SELECT count(*) FROM ${cte}) AS f${k + 1}`)
    .join('');
  return `WITH ${variant === 'known-heads' ? KNOWN_HEADS_CTES : FUNCTION_CTES}${ctes.map((c) => `, ${c}`).join('')}
    SELECT o.item, o.outcome, o.version, o.last_hash, o.positions FROM chronicle_outcome o${joins} ORDER BY o.item`;
}

/** Whether a batch can go as the append at known heads: every item expects the head this process knows, with no keys, one item per stream. */
export function atKnownHeads(items: readonly PendingAppend[], head: (streamId: string) => KnownHead | undefined): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    if (item.expected === null || item.keys.length > 0 || seen.has(item.streamId)) return false;
    if (head(item.streamId)?.version !== item.expected) return false;
    seen.add(item.streamId);
  }
  return true;
}

export function appendAtKnownHeadsValues(items: readonly PendingAppend[], head: (streamId: string) => KnownHead | undefined): unknown[] {
  const prevVersions: number[] = [];
  const prevHashes: string[] = [];
  const nextVersions: number[] = [];
  const nextHashes: string[] = [];
  const eventItems: number[] = [];
  const eventVersions: number[] = [];
  const types: string[] = [];
  const data: string[] = [];
  const meta: string[] = [];
  const hashes: string[] = [];
  items.forEach((item, itemIndex) => {
    const known = head(item.streamId) as KnownHead;
    let version = known.version;
    let hash = known.hash;
    item.events.forEach((event, index) => {
      version += 1;
      hash = chainLink(hash, version, event.type, item.canon[index]);
      eventItems.push(itemIndex + 1);
      eventVersions.push(version);
      types.push(event.type);
      data.push(item.canon[index]);
      meta.push(item.meta[index]);
      hashes.push(hash);
    });
    prevVersions.push(known.version);
    prevHashes.push(known.hash);
    nextVersions.push(version);
    nextHashes.push(hash);
  });
  // The per-event columns go as numbers or as one JSON array each (data and metadata are canonical JSON
  // already): PostgreSQL parses each once, where a text[] would be escaped element by element here (pg's
  // arrayString) and unescaped, then parsed again, there. Each event names its item by its 1-based index.
  // Data is split as json, whose elements are the very text sent: the column keeps the canonical text.
  return [
    items.map((i) => i.streamId),
    prevVersions,
    prevHashes,
    nextVersions,
    nextHashes,
    eventItems,
    eventVersions,
    JSON.stringify(types),
    `[${data.join(',')}]`,
    `[${meta.join(',')}]`,
    JSON.stringify(hashes),
  ];
}
