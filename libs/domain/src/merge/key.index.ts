import type { KeyParts } from './comparison-keys.builder.js';

/**
 * A map over two-part keys. The long head is hashed once as the string it already is; the few keys
 * sharing a head sit in a short chain told apart by their tail. A composite string per key (a copy
 * plus a hash) or a nested Map per head (an allocation per row) dominated 10k-row merges.
 */
interface Bucket<V> {
  readonly tail: string;
  readonly value: V;
  next: Bucket<V> | null;
}

export interface KeyIndex<V> {
  readonly byHead: Map<string, Bucket<V>>;
}

export function createKeyIndex<V>(): KeyIndex<V> {
  return { byHead: new Map() };
}

function find<V>(index: KeyIndex<V>, key: KeyParts): Bucket<V> | null {
  for (let bucket = index.byHead.get(key.head) ?? null; bucket !== null; bucket = bucket.next) {
    if (bucket.tail === key.tail) return bucket;
  }
  return null;
}

export function keyIndexGet<V>(index: KeyIndex<V>, key: KeyParts): V | undefined {
  return find(index, key)?.value;
}

export function keyIndexHas<V>(index: KeyIndex<V>, key: KeyParts): boolean {
  return find(index, key) !== null;
}

/** First holder wins: a later row with the same key never replaces it. */
export function keyIndexSetIfAbsent<V>(index: KeyIndex<V>, key: KeyParts, value: V): void {
  const first = index.byHead.get(key.head);
  if (first === undefined) {
    index.byHead.set(key.head, { tail: key.tail, value, next: null });
    return;
  }
  let bucket = first;
  for (;;) {
    if (bucket.tail === key.tail) return;
    if (bucket.next === null) break;
    bucket = bucket.next;
  }
  bucket.next = { tail: key.tail, value, next: null };
}
