import { chainHash } from '#event-store';

export interface ChainLink {
  readonly version: number;
  readonly type: string;
  readonly data: unknown;
  readonly hash: string;
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

function linkHash(previous: string, event: ChainLink): string | null {
  try {
    return chainHash(previous, event.version, event.type, event.data);
  } catch {
    return null;
  }
}

/**
 * Recomputes every link from version 1: `hash = sha256(previous hash + canonical JSON of {version,type,data})`.
 * The expected chain is carried forward, so an edited event breaks at its own version, and an edit that
 * also rewrote that event's hash breaks at the next one. With the stream head, a head that claims a
 * different version or last hash than the events give is broken too: at the first version beyond the
 * shorter of the two, or at the head version when only the last hash disagrees.
 */
export function verifyChain(events: readonly ChainLink[], head?: StreamHeadLink): ChainVerdict {
  let previous = '';
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i];
    if (event.version !== i + 1) return broken(i + 1);
    const expected = linkHash(previous, event);
    if (expected === null || expected !== event.hash) return broken(event.version);
    previous = expected;
  }
  if (head) {
    if (head.version !== events.length) return broken(Math.min(head.version, events.length) + 1);
    if (head.lastHash !== previous) return broken(Math.max(head.version, 1));
  }
  return { ok: true, firstBrokenVersion: null };
}
