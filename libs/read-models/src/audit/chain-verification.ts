import { CONTENT_FIELDS, inVersionRanges, isDroppedContent } from '#domain/replay';
import { chainHash, chainLink } from '#event-store/hash';

export interface ChainLink {
  readonly version: number;
  readonly type: string;
  readonly data: unknown;
  readonly hash: string;
  /**
   * The data's JSON text as stored, when the reader has it. The store keeps the canonical text its link hashed,
   * so that text is hashed as it is; only a text that does not hash to the link (a row written before event
   * data was stored as json, or one edited in the table) is canonicalized from `data` and hashed again.
   */
  readonly text?: string;
  /** The data as stored, when the reader opened sealed content into `data` (`ReadableStoredEvent`): what the link hashed. */
  readonly storedData?: unknown;
}

export interface StreamHeadLink {
  readonly version: number;
  readonly lastHash: string;
}

export interface ChainVerdict {
  readonly ok: boolean;
  /** The first version whose stored hash does not follow from the events before it (or a missing version). */
  readonly firstBrokenVersion: number | null;
}

const broken = (version: number): ChainVerdict => ({ ok: false, firstBrokenVersion: version });

/** The event store's own chain link (`chainHash`) of `event` after `previous`; null when its data cannot be canonical JSON. */
export function fastLinkHash(previous: string, event: ChainLink): string | null {
  if (event.text !== undefined) {
    const stored = chainLink(previous, event.version, event.type, event.text);
    if (stored === event.hash) return stored;
  }
  return canonicalLinkHash(previous, event.version, event.type, () => (event.storedData !== undefined ? event.storedData : event.data));
}

/** `fastLinkHash` of a link whose data is still its stored text: parsed only when the text does not hash to the link. */
export function storedLinkHash(previous: string, version: number, type: string, hash: string, text: string): string | null {
  const stored = chainLink(previous, version, type, text);
  return stored === hash ? stored : canonicalLinkHash(previous, version, type, () => JSON.parse(text) as unknown);
}

function canonicalLinkHash(previous: string, version: number, type: string, data: () => unknown): string | null {
  try {
    return chainHash(previous, version, type, data());
  } catch {
    return null;
  }
}

/**
 * Follows a chain link by link, so a stream read in pages is verified as it streams (the whole-store audit
 * never holds a stream's events). The expected chain is carried forward: an edited event breaks at its own
 * version, and an edit that also rewrote that event's hash breaks at the next one.
 */
export class ChainFollower {
  private previous: string;
  private count: number;
  private brokenAt: number | null = null;
  /**
   * Versions whose link could not be recomputed because an erasure dropped their plain content (stored in the
   * dropped form): accepted as stored, and checked at the verdict against the versions the stream's
   * `SessionErased` lists. Any other edit breaks the chain as before.
   */
  private readonly dropped: number[] = [];
  private listed: readonly (readonly [number, number])[] = [];

  /** From the stream's start, or from a link already verified (its version and hash): the next must follow it. */
  constructor(from?: StreamHeadLink) {
    this.previous = from?.lastHash ?? '';
    this.count = from?.version ?? 0;
  }

  push(event: ChainLink): void {
    const stored = event.storedData !== undefined ? event.storedData : event.data;
    if (event.type === 'SessionErased') this.listed = erasedRanges(stored);
    if (!this.expects(event.version)) return;
    const expected = fastLinkHash(this.previous, event);
    if (expected !== event.hash && isDroppedForm(event.type, stored)) this.acceptDropped(event.version, event.hash);
    else this.settle(event.version, event.hash, expected);
  }

  /** `push` of a link read as text (`storedLinkHash`): its data is parsed only if its text does not hash to it. */
  pushStored(version: number, type: string, hash: string, text: string): void {
    if (type === 'SessionErased') this.listed = erasedRanges(parsed(text));
    if (!this.expects(version)) return;
    const expected = storedLinkHash(this.previous, version, type, hash, text);
    if (expected !== hash && isDroppedForm(type, parsed(text))) this.acceptDropped(version, hash);
    else this.settle(version, hash, expected);
  }

  private acceptDropped(version: number, hash: string): void {
    this.dropped.push(version);
    this.previous = hash;
  }

  /** Counts the link; whether it is still to be checked (the chain unbroken so far, and the link the next version). */
  private expects(version: number): boolean {
    this.count += 1;
    if (this.brokenAt !== null) return false;
    if (version === this.count) return true;
    this.brokenAt = this.count;
    return false;
  }

  private settle(version: number, hash: string, expected: string | null): void {
    if (expected === null || expected !== hash) this.brokenAt = version;
    else this.previous = expected;
  }

  /**
   * With the stream head, a head that claims a different version or last hash than the events give is broken
   * too: at the first version beyond the shorter of the two, or at the head version when only the last hash
   * disagrees.
   */
  verdict(head?: StreamHeadLink): ChainVerdict {
    const unlisted = this.dropped.find((version) => !inVersionRanges(this.listed, version));
    if (unlisted !== undefined && (this.brokenAt === null || unlisted < this.brokenAt)) return broken(unlisted);
    if (this.brokenAt !== null) return broken(this.brokenAt);
    if (head) {
      if (head.version !== this.count) return broken(Math.min(head.version, this.count) + 1);
      if (head.lastHash !== this.previous) return broken(Math.max(head.version, 1));
    }
    return { ok: true, firstBrokenVersion: null };
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** An event in the form an erasure leaves content it dropped: the marker, and none of its type's content fields. */
function isDroppedForm(type: string, data: unknown): boolean {
  if (typeof data !== 'object' || data === null || !isDroppedContent(data as Record<string, unknown>)) return false;
  const fields = (CONTENT_FIELDS as Record<string, readonly string[] | undefined>)[type] ?? [];
  return fields.every((field) => !(field in data));
}

/** The versions a `SessionErased` lists as dropped (none for anything else). */
function erasedRanges(data: unknown): readonly (readonly [number, number])[] {
  const ranges = (data as { droppedContent?: unknown } | null)?.droppedContent;
  return Array.isArray(ranges) ? (ranges.filter((r) => Array.isArray(r) && r.length === 2 && r.every(Number.isInteger)) as [number, number][]) : [];
}

/** Recomputes every link from version 1: `hash = sha256(previous hash + canonical JSON of {version,type,data})`. */
export function verifyChain(events: readonly ChainLink[], head?: StreamHeadLink): ChainVerdict {
  const follower = new ChainFollower();
  for (const event of events) follower.push(event);
  return follower.verdict(head);
}
