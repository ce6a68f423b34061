import { chainHash, type EventStore, runMemberOf } from '#event-store';
import type { ImportEvent } from './ndjson.reader.js';

/** What the import will do with one stream of the file. */
export interface StreamPlan {
  readonly streamId: string;
  readonly firstVersion: number;
  lastVersion: number;
  lastHash: string;
  /** Stream version in the database before the import: file events at or below it are skipped. */
  readonly storedVersion: number;
  readonly storedHash: string;
  broken: boolean;
  /** The sealed run the file is inside of for this stream: the member expected next, of how many, begun where. */
  run: { next: number; size: number; from: number } | null;
}

export interface Verification {
  readonly plans: Map<string, StreamPlan>;
  readonly problems: string[];
  readonly events: number;
  /** Events of the file not yet in the database. */
  readonly toAppend: number;
}

const MAX_PROBLEMS = 20;

async function hashAt(store: EventStore, streamId: string, version: number): Promise<string | null> {
  const [event] = await store.readStream(streamId, { from: version, to: version });
  return event?.hash ?? null;
}

/**
 * First pass of `import`: recomputes the hash chain of every stream of the file (from version 1, or from the
 * stored event just before the file's first version for a continuation) and checks that events already
 * stored are the same events (same chain hash). Memory is one entry per stream, not per event.
 */
export async function verifyChains(
  store: EventStore,
  events: AsyncIterable<ImportEvent>,
  onEvent: (event: ImportEvent) => void = () => undefined,
): Promise<Verification> {
  const plans = new Map<string, StreamPlan>();
  const problems: string[] = [];
  let count = 0;
  const refuse = (plan: StreamPlan, message: string) => {
    plan.broken = true;
    if (problems.length < MAX_PROBLEMS) problems.push(`stream ${plan.streamId} version ${message}`);
  };
  for await (const event of events) {
    count++;
    onEvent(event);
    let plan = plans.get(event.streamId);
    if (!plan) {
      const head = await store.head(event.streamId);
      const storedVersion = head?.version ?? 0;
      plan = { streamId: event.streamId, firstVersion: event.version, lastVersion: event.version - 1, lastHash: '', storedVersion, storedHash: head?.lastHash ?? '', broken: false, run: null };
      plans.set(event.streamId, plan);
      if (event.version > storedVersion + 1) {
        refuse(plan, `${event.version}: the file continues the stream from version ${event.version} but the database holds only ${storedVersion} event(s) of it (line ${event.line})`);
      } else if (event.version > 1) {
        plan.lastHash = (await hashAt(store, event.streamId, event.version - 1)) ?? '';
      }
    }
    if (plan.broken) continue;
    if (event.version !== plan.lastVersion + 1) {
      refuse(plan, `${event.version}: expected version ${plan.lastVersion + 1} (versions of a stream must be consecutive, line ${event.line})`);
      continue;
    }
    const recomputed = chainHash(plan.lastHash, event.version, event.type, event.data);
    if (recomputed !== event.hash) {
      refuse(plan, `${event.version}: hash does not follow the chain (line ${event.line}: recomputed ${recomputed}, file has ${event.hash}) - the event was edited or the file is corrupt`);
      continue;
    }
    const runProblem = followRun(plan, event);
    if (runProblem !== null) {
      refuse(plan, `${event.version}: ${runProblem} (line ${event.line})`);
      continue;
    }
    plan.lastVersion = event.version;
    plan.lastHash = event.hash;
    if (event.version === plan.storedVersion && event.hash !== plan.storedHash) {
      refuse(plan, `${event.version}: conflicts with the stored event (stored hash ${plan.storedHash}, file has ${event.hash}, line ${event.line})`);
    }
  }
  let toAppend = 0;
  for (const plan of plans.values()) {
    if (plan.broken) continue;
    // A run opens whole: a file that ends inside one could append its first members only, whose content no one
    // could read. (Where the database already holds the rest, nothing of the stream is appended.)
    if (plan.run !== null && plan.lastVersion > plan.storedVersion) {
      refuse(plan, `${plan.lastVersion}: the file ends inside the sealed run that began at version ${plan.run.from} (member ${plan.run.next} of ${plan.run.size} missing); export whole streams`);
      continue;
    }
    if (plan.lastVersion < plan.storedVersion) {
      const stored = await hashAt(store, plan.streamId, plan.lastVersion);
      if (stored !== plan.lastHash) refuse(plan, `${plan.lastVersion}: conflicts with the stored event (stored hash ${stored}, file has ${plan.lastHash})`);
    }
    toAppend += Math.max(0, plan.lastVersion - plan.storedVersion);
  }
  const broken = [...plans.values()].filter((p) => p.broken).length;
  if (broken > problems.length) problems.push(`... and ${broken - problems.length} more stream(s)`);
  return { plans, problems, events: count, toAppend };
}

/**
 * Follows the stream's sealed runs (content-seal.ts) through the file: each run's members in order, none missing.
 * A file that begins inside a run (a continuation) is accepted where the run's first members are stored. Answers
 * the problem, or null.
 */
function followRun(plan: StreamPlan, event: ImportEvent): string | null {
  const member = runMemberOf(event.data);
  const open = plan.run;
  if (open !== null && (member === null || member.index !== open.next || member.size !== open.size)) {
    return `breaks the sealed run that began at version ${open.from} (member ${open.next} of ${open.size} expected)`;
  }
  if (open === null && member !== null && member.index !== 0) {
    const from = event.version - member.index;
    const continued = event.version === plan.firstVersion && from >= 1 && event.version - 1 <= plan.storedVersion;
    if (!continued) return `is member ${member.index} of a sealed run whose first members the file and the database lack`;
  }
  if (member === null || member.index === member.size - 1) plan.run = null;
  else plan.run = { next: member.index + 1, size: member.size, from: event.version - member.index };
  return null;
}
