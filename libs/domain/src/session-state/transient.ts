/**
 * Copy-on-write with ownership, for folding many events in one go without mutating the state passed in.
 * An object is copied the first time a fold writes to it and owned (mutable) from then on, so a run of
 * token events pushes into one journal chunk instead of copying it per event. Across folds (`evolve` one event
 * at a time) a write copies only what it touches: the run table's bucket list and one bucket (run-table.ts),
 * the run record, the journal's chunk list and its last chunk (journal-chunks.ts). Ownership lives in this
 * object only; a state that left the fold is never written again.
 */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export class Transient {
  private readonly owned = new WeakSet<object>();

  /** See `FoldOptions.alwaysMerge` (session/session.evolve.ts). */
  constructor(readonly alwaysMerge = false) {}

  /** Owned records of this fold by key (a run's record is looked up on every token event). */
  readonly memo = new Map<string, object>();

  /** A writable version of `value`: itself when this fold made it, else a shallow copy. */
  own<T extends object>(value: T): Mutable<T> {
    if (this.owned.has(value)) return value as Mutable<T>;
    const copy = (Array.isArray(value) ? value.slice() : { ...value }) as Mutable<T>;
    this.owned.add(copy);
    return copy;
  }

  /** Marks an object this fold built as writable. */
  adopt<T extends object>(value: T): Mutable<T> {
    this.owned.add(value);
    return value as Mutable<T>;
  }

  /** A writable array: the same one when owned, a copy otherwise. */
  ownArray<T>(value: readonly T[]): T[] {
    return this.own(value as T[]) as unknown as T[];
  }
}
