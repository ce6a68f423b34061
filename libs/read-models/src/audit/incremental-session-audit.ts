import { type SessionState, sha256Hex, toSessionStreamId, withJournalsFromEvents } from '#domain';
import type { ReadableStoredEvent } from '#event-store';
import { readJournalSpans, SNAPSHOT_SCHEMA_VERSION } from '../snapshot-store.js';
import { tallied, type WorkTally } from '../work-tally.js';
import { DEFAULT_DIFFERENCE_LIMIT } from './deep-diff.js';
import { type AuditDeps, AuditSessionNotFoundError, type SessionAudit } from './session-audit.js';
import { type AuditResumePoint, StreamingSessionAudit } from './store/streaming-session-audit.js';
import { indexPassed, openedSnapshots, readIndexRow, readModelKey, readSummaryRow } from './stored-read-models.js';

/**
 * What an earlier audit established about a session: its head then, and the snapshot rows it compared equal to
 * its own replay — each by version, a digest of the row's text and the chain hash at that version.
 */
interface VerifiedSession {
  readonly version: number;
  readonly lastHash: string;
  readonly snapshots: readonly { readonly version: number; readonly digest: string; readonly hash: string }[];
  /** When it was last audited from version 1 (ms). */
  readonly fullAt: number;
}

export interface IncrementalAuditOptions {
  /** Sessions remembered (least recently verified forgotten first: their next audit is a full one). */
  readonly remember?: number;
  /** A session is audited from version 1 again when its last full audit is older than this (ms). */
  readonly fullEveryMs?: number;
  readonly now?: () => number;
}

/** A verdict and how many events it replayed (its share of a pass's budget). */
export interface IncrementalAudit {
  readonly audit: SessionAudit;
  readonly replayed: number;
  readonly full: boolean;
  /**
   * Seconds of the audit's own synchronous work (hashing, parsing, opening, folding, rendering — the served view's
   * too, when it is not cached —, comparing); not its waits for the store or the session's key.
   */
  readonly busySeconds: number;
}

/** Events rendered and compared per event replayed, in a pass's budget (see `plan`). */
const RENDER_SHARE = 4;


/** A snapshot row at or before the resume point that an earlier audit verified, changed since: a difference too. */
function withChanged(
  verdict: SessionAudit,
  snapshots: readonly { version: number; digest: string }[],
  start: number,
  record: VerifiedSession | undefined,
): SessionAudit {
  const changed = snapshots.filter((s) => s.version <= start && record?.snapshots.some((k) => k.version === s.version && k.digest !== s.digest));
  if (changed.length === 0) return verdict;
  const differences = [
    ...verdict.differences,
    ...changed.map((s) => ({ path: `snapshot@${s.version}`, stored: 'changed since it was verified', replayed: undefined })),
  ];
  return { ...verdict, match: false, differences };
}

/**
 * Audits sessions again and again, each time from the newest snapshot row an earlier audit of this process
 * verified (unchanged since: same digest) instead of from version 1: the chain is re-hashed from that
 * snapshot's version on, from the hash the earlier audit verified there, so every event after it — those
 * appended since and those already seen — must still chain to the head; the fold resumes from the snapshot's
 * state; every stored model written after it (snapshots, the summary row, the index row) and the view this
 * process serves are compared with the replay. Events at or before the resume point are not looked at: an edit
 * there is found by the next full audit (without a verified snapshot, every `fullEveryMs`, or a whole-store
 * audit). A mismatch forgets the session, so it is audited in full, and reported, until it matches.
 */
export class IncrementalSessionAudits {
  private readonly verified = new Map<string, VerifiedSession>();
  private readonly remember: number;
  private readonly fullEveryMs: number;
  private readonly now: () => number;

  constructor(
    private readonly deps: AuditDeps,
    options: IncrementalAuditOptions = {},
  ) {
    this.remember = options.remember ?? 10_000;
    this.fullEveryMs = options.fullEveryMs ?? 600_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * The next audit's cost in replayed events, without reading them: the events after the resume point (read,
   * hashed, folded), plus the whole session's rendering and view comparison, charged a quarter per event. They
   * cost a twenty-fifth to a third of reading, hashing and folding an event; a smaller charge would let the
   * passes spend more CPU than the whole-session auditor did (bench/README.md).
   */
  async plan(sessionId: string): Promise<number> {
    const head = await this.deps.store.head(toSessionStreamId(sessionId));
    if (!head) return 0;
    const record = this.verified.get(toSessionStreamId(sessionId));
    const newest = record && this.resumable(record, head.version) ? (record.snapshots.at(-1)?.version ?? 0) : 0;
    return head.version - Math.min(newest, head.version) + Math.ceil(head.version / RENDER_SHARE);
  }

  async audit(sessionId: string): Promise<IncrementalAudit> {
    const { pool, store, views } = this.deps;
    const streamId = toSessionStreamId(sessionId);
    const head = await store.head(streamId);
    if (!head) throw new AuditSessionNotFoundError(sessionId);
    const rows = await pool.query<{ version: number; state: string }>(
      `SELECT version::int AS version, state::text AS state FROM session_snapshots
        WHERE stream_id = $1 AND schema_version = $2 AND version <= $3 ORDER BY session_snapshots.version`,
      [streamId, SNAPSHOT_SCHEMA_VERSION, head.version],
    );
    // The pass's own work (hashing, parsing, folding, rendering, comparing), not its waits for the store or the key.
    const tally: WorkTally = { ms: 0 };
    // The digest is of the text as stored (sealed or not); the state is the opened text. An unreadable one is left out.
    const opened = await openedSnapshots(this.deps.keyring ?? null, streamId, rows.rows, tally);
    const record = this.verified.get(streamId);
    const resumed = tallied(tally, () => {
      const snapshots = rows.rows.flatMap((row, i) => {
        const state = opened[i].state;
        return state === null ? [] : [{ version: row.version, state, digest: sha256Hex(row.state) }];
      });
      if (!record || !this.resumable(record, head.version)) return { snapshots, from: undefined };
      for (const row of [...snapshots].reverse()) {
        const known = record.snapshots.find((s) => s.version === row.version && s.digest === row.digest);
        if (known) return { snapshots, from: { version: row.version, lastHash: known.hash, state: JSON.parse(row.state) as SessionState, digest: row.digest } };
      }
      return { snapshots, from: undefined };
    });
    const snapshots = resumed.snapshots;
    let from: (AuditResumePoint & { digest: string }) | undefined = resumed.from;
    // A snapshot holds the stored form: its live journals are read back from the stream, as a cold read does.
    if (from) {
      const resumedFrom = from;
      const spanned = await readJournalSpans(store, streamId, resumedFrom.state);
      from = tallied(tally, () => ({ ...resumedFrom, state: withJournalsFromEvents(resumedFrom.state, spanned) }));
    }
    const start = from?.version ?? 0;
    const events = await store.readStream(streamId, { from: start + 1, to: head.version });
    // Checkpoint before the rows: once it has passed the head, any index row read afterwards is at least that new.
    const last = events.at(-1) ?? (await store.readStream(streamId, { from: head.version, to: head.version }))[0];
    const indexCaughtUp = await indexPassed(pool, last);
    const key = await readModelKey(this.deps.keyring, streamId);
    const [summary, index, served] = await Promise.all([
      readSummaryRow(pool, streamId, key),
      readIndexRow(pool, sessionId, key),
      views.view(sessionId, head.version, tally),
    ]);
    const resumePoint = from;
    const verdict = tallied(tally, () => {
      const later = snapshots.filter((s) => s.version > start);
      const audit = new StreamingSessionAudit(
        sessionId,
        head,
        { snapshots: later.map((s) => ({ version: s.version, state: () => JSON.parse(s.state) as unknown })), summary, index, indexCaughtUp },
        DEFAULT_DIFFERENCE_LIMIT,
        resumePoint,
        false,
      );
      audit.feed(events.map((e) => ({ version: e.version, type: e.type, data: e.data, hash: e.hash, storedData: (e as ReadableStoredEvent).storedData })));
      const found = withChanged(audit.finish(served.exists && served.version === head.version ? served.view : null), snapshots, start, record);
      this.verified.delete(streamId);
      if (found.match) {
        const hashAt = (version: number) => events[version - start - 1]?.hash;
        const kept = resumePoint ? [{ version: resumePoint.version, digest: resumePoint.digest, hash: resumePoint.lastHash }] : [];
        const verifiedLater = later.map((s) => ({ version: s.version, digest: s.digest, hash: hashAt(s.version) as string }));
        this.verified.set(streamId, {
          version: head.version,
          lastHash: head.lastHash,
          snapshots: [...kept, ...verifiedLater],
          fullAt: resumePoint && record ? record.fullAt : this.now(),
        });
        if (this.verified.size > this.remember) this.verified.delete(this.verified.keys().next().value as string);
      }
      return found;
    });
    return { audit: verdict, replayed: events.length, full: from === undefined, busySeconds: tally.ms / 1000 };
  }

  private resumable(record: VerifiedSession, headVersion: number): boolean {
    return record.version <= headVersion && this.now() - record.fullAt < this.fullEveryMs;
  }
}
