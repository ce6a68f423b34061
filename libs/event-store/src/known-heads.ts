/** A stream's head as this process last committed it: the version and the hash of its last event. */
export interface KnownHead {
  readonly version: number;
  readonly hash: string;
}

/**
 * The heads of the streams this process appended to, bounded in entries (least recently written first out).
 * Only a hint: an append built on it states the head it assumed, and PostgreSQL checks it under the row lock.
 */
export class KnownHeads {
  private readonly heads = new Map<string, KnownHead>();

  constructor(private readonly capacity = 100_000) {}

  get(streamId: string): KnownHead | undefined {
    return this.heads.get(streamId);
  }

  set(streamId: string, head: KnownHead): void {
    this.heads.delete(streamId);
    this.heads.set(streamId, head);
    if (this.heads.size > this.capacity) this.heads.delete(this.heads.keys().next().value as string);
  }

  forget(streamId: string): void {
    this.heads.delete(streamId);
  }

  get size(): number {
    return this.heads.size;
  }
}
