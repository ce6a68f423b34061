import {
  evolveAll,
  initialSessionState,
  render,
  renderTranscript,
  type SessionEvent,
  type SessionState,
  type SessionView,
  storedFormOf,
} from '#domain';
import { indexRowOf, type StoredIndexRow } from '../session-index/index-row.builder.js';
import { summaryRowOf } from '../session-summary/summary-row.builder.js';
import { DEFAULT_DIFFERENCE_LIMIT, deepDiff, type Difference } from './deep-diff.js';

/** Everything stored or cached about one session at audit time, each at the version it was written at. */
export interface StoredReadModels {
  readonly snapshots: readonly { readonly version: number; readonly state: unknown }[];
  /** `session_summaries` (written by the append transaction); null when the appends carried none. */
  readonly summary: { readonly version: number; readonly data: unknown } | null;
  readonly index: StoredIndexRow | null;
  /** The index projector's checkpoint is past the stream's last event: the row must exist at the head. */
  readonly indexCaughtUp: boolean;
  /** What `SessionViews.view` serves at the audited version; null when it says the session does not exist. */
  readonly served: SessionView | null;
}

export interface ReadModelComparison {
  readonly storedHash: string;
  readonly replayedHash: string;
  readonly differences: readonly Difference[];
}

/** Folds once, keeping the state at each version a stored model was written at (`evolveAll` never mutates its input). */
function statesAt(events: readonly SessionEvent[], versions: readonly number[]): Map<number, SessionState> {
  const states = new Map<number, SessionState>([[0, initialSessionState()]]);
  let state = initialSessionState();
  let done = 0;
  for (const version of [...new Set(versions)].sort((a, b) => a - b)) {
    state = evolveAll(state, events.slice(done, version));
    done = version;
    states.set(version, state);
  }
  return states;
}

/**
 * Rebuilds every read model of a session from its events alone (the pure projection) and compares each with
 * what is stored or cached. Models written beyond `events.length` (a concurrent append) are not compared.
 */
export function compareReadModels(
  events: readonly SessionEvent[],
  stored: StoredReadModels,
  limit = DEFAULT_DIFFERENCE_LIMIT,
): ReadModelComparison {
  const head = events.length;
  const within = (version: number) => version >= 0 && version <= head;
  const snapshots = stored.snapshots.filter((s) => within(s.version));
  const summary = stored.summary && within(stored.summary.version) ? stored.summary : null;
  const index = stored.index && within(stored.index.version) ? stored.index : null;
  const states = statesAt(events, [head, ...snapshots.map((s) => s.version), summary?.version ?? 0, index?.version ?? 0]);
  const stateAt = (version: number) => states.get(version) as SessionState;
  const replayed = render(stateAt(head));

  const differences: Difference[] = [];
  const add = (found: readonly Difference[]) => differences.push(...found);
  const room = () => limit - differences.length;

  for (const snapshot of snapshots) {
    add(deepDiff(snapshot.state, storedFormOf(stateAt(snapshot.version)), { path: `snapshot@${snapshot.version}`, limit: room() }));
  }
  if (summary) add(deepDiff(summary.data, summaryRowOf(stateAt(summary.version), summary.version), { path: 'summary', limit: room() }));
  if (index) {
    const view = index.version === head ? replayed : render(stateAt(index.version));
    add(deepDiff(index, indexRowOf(view, index.version), { path: 'index', limit: room() }));
  }
  if (stored.indexCaughtUp && (stored.index === null || stored.index.version < head) && room() > 0) {
    differences.push({ path: 'index.version', stored: stored.index?.version, replayed: head });
  }
  if (stored.served === null) {
    if (room() > 0) differences.push({ path: 'view', stored: undefined, replayed: `a view at version ${head}` });
  } else {
    add(deepDiff(stored.served, replayed, { path: 'view', limit: room() }));
  }

  const replayedHash = renderTranscript(replayed, 'display').hash;
  return {
    storedHash: stored.served ? renderTranscript(stored.served, 'display').hash : '',
    replayedHash,
    differences: differences.slice(0, limit),
  };
}
