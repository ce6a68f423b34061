import type { KeyParts } from './comparison-keys.builder.js';
import { TextMap } from '../text/text.map.js';

/**
 * A map over split keys. The long head is hashed once as the string it already is; the few keys
 * sharing a head sit in a short chain told apart by their tail and +api part. A composite string per
 * key (a copy plus a hash) or a nested Map per head (an allocation per row) dominated 10k-row merges.
 * A head shared by many keys (the empty text of tool-call-only rows, a repeated "OK") would make that
 * chain long and every lookup a scan: past CHAIN_LIMIT keys, the head files them in Maps by tail,
 * then by +api, instead.
 */
interface Bucket<V> {
  readonly tail: string;
  readonly api: string | null;
  readonly value: V;
  next: Bucket<V> | null;
}

/** The first bucket of a head, with the head's key count and, once it is large, its Maps. */
interface Head<V> extends Bucket<V> {
  count: number;
  wide: Map<string, ByApi<V>> | null;
}

/** The keys of one head and tail: without +api, and by +api (the provider bytes, hashed as they are). */
interface ByApi<V> {
  plain: V | undefined;
  withApi: TextMap<V> | null;
}

const CHAIN_LIMIT = 8;

export interface KeyIndex<V> {
  readonly byHead: TextMap<Head<V>>;
}

export function createKeyIndex<V>(): KeyIndex<V> {
  return { byHead: new TextMap() };
}

function wideGet<V>(wide: Map<string, ByApi<V>>, tail: string, api: string | null): V | undefined {
  const byApi = wide.get(tail);
  if (byApi === undefined) return undefined;
  return api === null ? byApi.plain : byApi.withApi?.get(api);
}

function wideSetIfAbsent<V>(wide: Map<string, ByApi<V>>, tail: string, api: string | null, value: V): void {
  let byApi = wide.get(tail);
  if (byApi === undefined) wide.set(tail, (byApi = { plain: undefined, withApi: null }));
  if (api === null) byApi.plain ??= value;
  else {
    byApi.withApi ??= new TextMap();
    if (!byApi.withApi.has(api)) byApi.withApi.set(api, value);
  }
}

export function keyIndexGet<V>(index: KeyIndex<V>, key: KeyParts): V | undefined {
  const head = index.byHead.get(key.head);
  if (head === undefined) return undefined;
  if (head.wide !== null) return wideGet(head.wide, key.tail, key.api);
  for (let bucket: Bucket<V> | null = head; bucket !== null; bucket = bucket.next) {
    if (bucket.tail === key.tail && bucket.api === key.api) return bucket.value;
  }
  return undefined;
}

export function keyIndexHas<V>(index: KeyIndex<V>, key: KeyParts): boolean {
  return keyIndexGet(index, key) !== undefined;
}

/** First holder wins: a later row with the same key never replaces it. */
export function keyIndexSetIfAbsent<V>(index: KeyIndex<V>, key: KeyParts, value: V): void {
  const head = index.byHead.get(key.head);
  if (head === undefined) {
    index.byHead.set(key.head, { tail: key.tail, api: key.api, value, next: null, count: 1, wide: null });
    return;
  }
  if (head.wide !== null) {
    wideSetIfAbsent(head.wide, key.tail, key.api, value);
    return;
  }
  let bucket: Bucket<V> = head;
  for (;;) {
    if (bucket.tail === key.tail && bucket.api === key.api) return;
    if (bucket.next === null) break;
    bucket = bucket.next;
  }
  bucket.next = { tail: key.tail, api: key.api, value, next: null };
  head.count += 1;
  if (head.count > CHAIN_LIMIT) {
    const wide = new Map<string, ByApi<V>>();
    for (let b: Bucket<V> | null = head; b !== null; b = b.next) wideSetIfAbsent(wide, b.tail, b.api, b.value);
    head.wide = wide;
  }
}
