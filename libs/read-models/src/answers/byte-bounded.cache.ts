/**
 * An LRU map bounded by the bytes its values hold, not by their count: one 10,000-message answer weighs as
 * much as a thousand short ones. An entry larger than the whole budget is not kept.
 */
export class ByteBoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private total = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly onSize: (bytes: number) => void = () => undefined,
    /** Told of each entry dropped to make room, or not kept for want of it (not of one replaced, deleted or cleared). */
    private readonly onEvict: (key: K) => void = () => undefined,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V, bytes: number): void {
    this.remove(key);
    if (bytes > this.maxBytes) {
      // Larger than the whole budget: not kept, which is a drop for room too (with a budget at all).
      if (this.maxBytes > 0) this.onEvict(key);
      this.onSize(this.total);
      return;
    }
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
      this.onEvict(oldest);
    }
    this.onSize(this.total);
  }

  /** Replaces a value in place, keeping its recency (a lazily added variant of a cached answer). */
  resize(key: K, value: V, bytes: number): void {
    if (!this.entries.has(key)) return;
    this.set(key, value, bytes);
  }

  delete(key: K): void {
    this.remove(key);
    this.onSize(this.total);
  }

  /** Drops every entry whose key `matches` (a session's, when it is erased): a walk of the keys, for rare calls. */
  deleteWhere(matches: (key: K) => boolean): void {
    for (const key of [...this.entries.keys()]) if (matches(key)) this.remove(key);
    this.onSize(this.total);
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
    this.onSize(0);
  }

  private remove(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
  }

  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }
}
