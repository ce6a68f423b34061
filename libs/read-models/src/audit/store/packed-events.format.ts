/**
 * The packed text of a batch's events (`store-audit.reader.ts` builds it in SQL; the reading thread follows its
 * chains and turns it into a fold lane's batch, `PackedChains.toBatch`): a record per event, `part␟version␟hash␟type␟schema␟data as stored`,
 * fields parted by U+001F and records by U+001E. Valid JSON holds no raw control character, so neither can be
 * in the data; a hash or a type holding one is written as `?` by the reader (an event so edited then matches no
 * link: reported broken).
 */
export const PACKED_FIELD = '\x1f';
export const PACKED_RECORD = '\x1e';

const TYPES_KEPT = 256;

/**
 * Each event type's text, once: a link keeps this copy, not a slice that would hold the whole batch text alive
 * (a handful of types; a store with more, edited ones, gets slices past TYPES_KEPT).
 */
export class EventTypes {
  private readonly kept = new Map<string, string>();
  private last = '';

  /** The type written at `text[from, to)`: most lines repeat the line before's, which is checked first, in place. */
  at(text: string, from: number, to: number): string {
    const last = this.last;
    if (to - from === last.length && text.startsWith(last, from)) return last;
    const slice = text.slice(from, to);
    let type = this.kept.get(slice);
    if (type === undefined) {
      // A flat copy of the slice (the Map's key is the slice itself).
      type = [...slice].join('');
      if (this.kept.size < TYPES_KEPT) this.kept.set(type, type);
    }
    this.last = type;
    return type;
  }
}

/**
 * A cursor over a packed text's lines, read in place: `next()` finds a line's fields, and only the fields asked
 * for become strings. `part` is the line's part, 0-based, checked against the batch's `parts`.
 */
export class PackedLines {
  part = -1;
  private at = 0;
  private end = 0;
  private version = 0;
  private hashAt = 0;
  private typeAt = 0;
  private schemaAt = 0;
  private dataAt = 0;

  constructor(
    private readonly text: string,
    private readonly parts: number,
    private readonly types: EventTypes,
  ) {}

  next(): boolean {
    const { text } = this;
    if (this.at >= text.length) return false;
    let end = text.indexOf(PACKED_RECORD, this.at);
    if (end < 0) end = text.length;
    const versionAt = text.indexOf(PACKED_FIELD, this.at) + 1;
    const hashAt = text.indexOf(PACKED_FIELD, versionAt) + 1;
    const typeAt = text.indexOf(PACKED_FIELD, hashAt) + 1;
    const schemaAt = text.indexOf(PACKED_FIELD, typeAt) + 1;
    const dataAt = text.indexOf(PACKED_FIELD, schemaAt) + 1;
    if (versionAt === 0 || hashAt === 0 || typeAt === 0 || schemaAt === 0 || dataAt === 0 || dataAt > end) {
      throw new Error('audit: a packed line without its six fields');
    }
    const part = Number(text.slice(this.at, versionAt - 1)) - 1;
    if (!(part >= 0 && part < this.parts)) throw new Error('audit: a packed line names no part of its batch');
    this.part = part;
    this.version = Number(text.slice(versionAt, hashAt - 1));
    this.hashAt = hashAt;
    this.typeAt = typeAt;
    this.schemaAt = schemaAt;
    this.dataAt = dataAt;
    this.end = end;
    this.at = end + 1;
    return true;
  }

  get eventVersion(): number {
    return this.version;
  }

  get hash(): string {
    return this.text.slice(this.hashAt, this.typeAt - 1);
  }

  get type(): string {
    return this.types.at(this.text, this.typeAt, this.schemaAt - 1);
  }

  /** The schema version the event was written with (`metadata.schema`, 1 when absent). */
  get schema(): number {
    return Number(this.text.slice(this.schemaAt, this.dataAt - 1)) || 1;
  }

  /** The data as stored (the json column's text). */
  get data(): string {
    return this.text.slice(this.dataAt, this.end);
  }
}
