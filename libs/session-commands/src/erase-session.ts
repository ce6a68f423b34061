import { toSessionStreamId, versionRanges } from '#domain';
import { ConcurrencyError, type PlainContent, type SessionKeyring } from '#event-store';
import type { SnapshotStore } from '#read-models';
import { executeSessionCommand } from './session-command.js';
import type { SessionWriter, WriteResult } from './session-writer.js';

/** Lists made at most before an erasure gives up on a session whose writers keep moving it (a 409 to retry). */
const MAX_LISTINGS = 50;

export interface EraseSessionRequest {
  readonly sessionId: string;
  readonly reason: string;
  /** Who asked: an API key's name, or `retention`. */
  readonly requestedBy: string;
  /** Epoch seconds. */
  readonly at: number;
}

export interface EraseResult extends WriteResult {
  /** The destroyed data key's id (null: the session's content was never sealed). */
  readonly dataKeyId: string | null;
  /** Snapshots dropped with it. */
  readonly snapshotsPurged: number;
  /** Events written before content was sealed whose plain content it dropped from the table. */
  readonly contentDropped: number;
}

/**
 * Erases a session's content (README "Personal data"): records `SessionErased` (the decision, with when, why and
 * by whom; a repeat is a duplicate), then destroys the data key (its content, sealed in the events, can never be
 * read again) and drops the snapshots, whose states held the content. The fold of `SessionErased` keeps nothing of
 * the content, so the summary row written with it, the session index after it and every cached state at or past
 * it hold none. Each step is idempotent: a retry after a crash between them finishes the erasure.
 */
export async function eraseSession(
  deps: {
    readonly writer: SessionWriter;
    readonly keyring: SessionKeyring | null;
    readonly snapshots: SnapshotStore;
    readonly plainContent: PlainContent;
    /** Tells every replica the session is erased (their caches of it hold its content), once its key is gone. */
    readonly announce?: (streamId: string, version: number) => Promise<void>;
  },
  request: EraseSessionRequest,
): Promise<EraseResult> {
  const streamId = toSessionStreamId(request.sessionId);
  const key = deps.keyring === null ? null : await deps.keyring.keyFor(streamId);
  // Content no key protects (events written before sealing, or with sealing off) is dropped after the decision
  // that lists it. Without a key, the decision is appended at the version the list was made at: an append that
  // lands in between (a worker still streaming) may hold plain content, so it moves the stream and the list is
  // made again, none left out. With a key, whatever lands after the list is sealed and goes with the key: the
  // decision is appended at whatever version the stream has reached, so writers that keep streaming cannot
  // starve it. The first decision recorded is final (a repeat drops only what it listed).
  let plain: number[] = [];
  let written: WriteResult | undefined;
  for (let attempt = 1; written === undefined; attempt++) {
    const listed = await deps.plainContent.listing(streamId);
    plain = listed.versions.filter((version) => version <= listed.head);
    const dropped = versionRanges(plain);
    const command = {
      type: 'EraseSession',
      data: {
        at: request.at,
        reason: request.reason,
        requestedBy: request.requestedBy,
        dataKeyId: key?.id ?? null,
        ...(dropped.length > 0 ? { droppedContent: dropped } : {}),
      },
    } as const;
    try {
      const atListedHead = key === null && listed.head > 0;
      written = await executeSessionCommand(deps.writer, request.sessionId, command, atListedHead ? { expectedVersion: listed.head } : {});
    } catch (error) {
      if (!(error instanceof ConcurrencyError) || attempt >= MAX_LISTINGS) throw error;
    }
  }
  const destroyed = deps.keyring === null ? null : await deps.keyring.destroy(streamId);
  // A retry after a crash (a duplicate decision) finds what its first attempt listed and did not drop yet: an
  // erased session takes no event, so nothing else can have been written plain since.
  const contentDropped = await deps.plainContent.drop(streamId, plain);
  const snapshotsPurged = await deps.snapshots.purge(streamId);
  await deps.announce?.(streamId, written.version);
  return { ...written, dataKeyId: key?.id ?? destroyed, snapshotsPurged, contentDropped };
}

