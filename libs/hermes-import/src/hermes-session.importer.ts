import { decide, DomainError, evolveAll, type SessionEvent, type SessionEventType, toSessionStreamId } from '#domain';
import { ConcurrencyError, type EventStore, type NewEvent } from '#event-store';
import type { SessionViews } from '#read-models';
import type { SessionWriter } from '#session-commands';
import { KEY } from './hermes-import.keys.js';
import type { Skipped } from './hermes-import.report.js';
import { planSession, type SessionInput } from './hermes-session.planner.js';

/** What the import writes with: the service's event store, views and write path. */
export interface ImportDeps {
  readonly store: EventStore;
  readonly views: SessionViews;
  readonly writer: SessionWriter;
}

export type SessionOutcome =
  | { readonly ok: true; readonly types: readonly SessionEventType[]; readonly skipped: readonly Skipped[] }
  | { readonly ok: false; readonly reason: string; readonly skipped: readonly Skipped[] };

/** Lost races with another writer of the same session are re-decided this many times. */
const ATTEMPTS = 3;

async function storedKeys(store: EventStore, sessionId: string): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const event of await store.readStream(toSessionStreamId(sessionId))) {
    const key = event.metadata['importKey'];
    if (typeof key === 'string') keys.add(key);
  }
  return keys;
}

const refusal = (error: DomainError): string =>
  `${error.code}: ${error.message}${error.errors.length > 0 ? ` (${error.errors.map((e) => `${e.path}: ${e.message}`).join('; ')})` : ''}`;

/**
 * Imports one session in one append: each planned command is decided by the pure decider on the state the
 * earlier ones evolved (a repeat of what is stored decides nothing), and the whole decision goes through the
 * write path (`SessionWriter.appendRecorded`) at the version it was made on. A refusal anywhere writes nothing
 * for the session. `dryRun` decides the same and appends nothing.
 */
export async function importSession(deps: ImportDeps, input: SessionInput, dryRun: boolean): Promise<SessionOutcome> {
  const { sessionId, file } = input.sidecar;
  for (let attempt = 1; ; attempt++) {
    const loaded = await deps.views.load(sessionId);
    const stored = loaded.exists ? await storedKeys(deps.store, sessionId) : new Set<string>();
    if (loaded.exists && !stored.has(KEY.session)) {
      return { ok: false, reason: `session ${sessionId} already exists in Chronicle and was not imported from hermes`, skipped: [] };
    }
    const plan = planSession(input, stored);
    let state = loaded.state;
    const events: NewEvent[] = [];
    try {
      for (const step of plan.steps) {
        const decision = decide(step.command, state);
        if (decision.events.length === 0) continue;
        state = evolveAll(state, decision.events);
        const metadata = { importedFrom: 'hermes', importKey: step.key };
        events.push(...decision.events.map((event: SessionEvent) => ({ type: event.type, data: event.data, metadata })));
      }
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { ok: false, reason: `${file}: ${refusal(error)}; nothing was imported for this session`, skipped: plan.skipped };
    }
    const types = events.map((event) => event.type as SessionEventType);
    if (dryRun || events.length === 0) return { ok: true, types, skipped: plan.skipped };
    try {
      await deps.writer.appendRecorded(toSessionStreamId(sessionId), events, loaded.version);
      return { ok: true, types, skipped: plan.skipped };
    } catch (error) {
      if (error instanceof ConcurrencyError && attempt < ATTEMPTS) continue;
      // Text PostgreSQL cannot store, a lost connection: this session is not written, the others go on.
      return { ok: false, reason: `${file}: could not be stored (${(error as Error).message}); nothing was imported for this session`, skipped: plan.skipped };
    }
  }
}
