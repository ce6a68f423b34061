import { DomainError, evolveAll, fromSessionStreamId, schemaStampOf, type SessionEvent, type SessionState, toSessionStreamId } from '#domain';
import { type AppendResult, ConcurrencyError, type Durability, type EventStore, IdempotencyKeyTaken, type NewEvent } from '#event-store';
import { type LoadedState, type SessionAppendContext, SessionViews, toDomainEvent } from '#read-models';

/** A lost race is re-decided on the new state this many times before the write gives up (`WriteContentionError`). */
export const MAX_WRITE_ATTEMPTS = 20;

/**
 * A write without a client precondition that lost the race for its stream on every attempt (other writers kept
 * moving it): nothing of it was stored, and it is the service's to retry, not the client's conflict — a 503 with
 * Retry-After, and the retry with the same natural keys answers `duplicate` if a twin of it got through.
 */
export class WriteContentionError extends Error {
  readonly code = 'WRITE_CONTENTION';
  constructor(
    readonly streamId: string,
    readonly attempts: number,
  ) {
    super(`Stream ${streamId} kept moving under ${attempts} attempts of this write (other writers of the session); nothing was stored. Retry it.`);
    this.name = 'WriteContentionError';
  }
}

/** What a write decided: the events to append, or that the command was already applied (nothing to append). */
export interface WriteDecision {
  readonly events: readonly SessionEvent[];
  readonly duplicate?: boolean;
}

export interface WriteOptions {
  /** Client's precondition (body `expectedVersion` or `If-Match`): a moved stream is a conflict, never a retry. */
  readonly expectedVersion?: number;
  /** `Idempotency-Key` header (routes without a natural key). */
  readonly idempotencyKey?: string;
  /** Start of a stream (SessionStarted) rather than a write to an existing session. */
  readonly creates?: boolean;
  readonly requestId?: string;
  /** `relaxed`: the append may be acknowledged before its commit is flushed (`AppendOptions.durability`). */
  readonly durability?: Durability;
}

/** The answer of every write of the contract. */
export interface WriteResult {
  readonly sessionId: string;
  readonly version: number;
  readonly appended: number;
  readonly duplicate: boolean;
  /** Present (false) when the append was committed relaxed: acknowledged before its commit was flushed. */
  readonly durable?: false;
}

export interface SessionWriterOptions {
  /** Told after every commit (the live hub: local subscribers hear of it without waiting for NOTIFY). */
  readonly onCommitted?: (sessionId: string, version: number) => void;
}

/**
 * The write path of every producer (the HTTP routes, the recovery supervisor, the CLI import): load the fold
 * state, decide with the pure decider, evolve, append at the version decided on, remember the new state.
 *
 * The state comes from the process's cache when it has one, with no read of the stream head first: the
 * append's own version check catches a cache another replica made stale, and then the write re-loads and
 * re-decides. Whatever the append cannot verify is never answered from the cache alone: a refusal, a
 * duplicate or a failed client precondition is checked again on a freshly loaded state first.
 */
export class SessionWriter {
  constructor(
    private readonly store: EventStore,
    private readonly views: SessionViews,
    private readonly options: SessionWriterOptions = {},
  ) {}

  async write(sessionId: string, decide: (loaded: LoadedState) => WriteDecision, options: WriteOptions = {}): Promise<WriteResult> {
    const streamId = toSessionStreamId(sessionId);
    const keys = options.idempotencyKey ? [`key:${options.idempotencyKey}`] : [];
    let fresh = false;
    for (let attempt = 1; ; attempt++) {
      const loaded = fresh ? await this.views.load(sessionId) : await this.views.loadLatest(sessionId);
      const verified = fresh || loaded.fresh;
      const settle = <T>(answer: () => T): T | null => (verified ? answer() : null);
      let decision: WriteDecision;
      try {
        if (!loaded.exists && !options.creates) {
          throw new DomainError('SESSION_NOT_FOUND', `Session ${sessionId} was never started.`);
        }
        // A repeat is answered as one before the client's precondition is checked: a retry of a write that was
        // applied (its answer lost) finds the stream moved by that very write, and is a duplicate, not a conflict.
        if (keys.length > 0 && (await this.store.findIdempotencyKey(streamId, keys[0])) !== null) {
          const answer = settle(() => ({ sessionId, version: loaded.version, appended: 0, duplicate: true }));
          if (answer) return answer;
          fresh = true;
          continue;
        }
        const moved = options.expectedVersion !== undefined && options.expectedVersion !== loaded.version;
        let decided: WriteDecision | undefined;
        let refusal: unknown;
        try {
          decided = decide(loaded);
        } catch (error) {
          refusal = error;
        }
        if (moved && !decided?.duplicate) throw new ConcurrencyError(streamId, options.expectedVersion!, loaded.version);
        if (decided === undefined) throw refusal;
        decision = decided;
      } catch (error) {
        if (verified) throw error;
        fresh = true;
        continue;
      }
      if (decision.duplicate || decision.events.length === 0) {
        const answer = settle(() => ({ sessionId, version: loaded.version, appended: 0, duplicate: Boolean(decision.duplicate) }));
        if (answer) return answer;
        fresh = true;
        continue;
      }
      try {
        const { version, durable } = await this.append(sessionId, loaded, decision, keys, options);
        return { sessionId, version, appended: decision.events.length, duplicate: false, ...(durable ? {} : { durable: false as const }) };
      } catch (error) {
        if (error instanceof IdempotencyKeyTaken && attempt < MAX_WRITE_ATTEMPTS) {
          fresh = true;
          continue;
        }
        if (!(error instanceof ConcurrencyError)) throw error;
        // A stale cache is not the client's race: re-load and re-decide, also under a client precondition.
        fresh = true;
        const clientsRace = options.expectedVersion !== undefined && verified;
        if (clientsRace) throw error;
        if (attempt >= MAX_WRITE_ATTEMPTS) throw new WriteContentionError(streamId, attempt);
        // Jittered, so writers that lost together do not meet again at the same instant.
        if (verified) await new Promise((resolve) => setTimeout(resolve, Math.min(50, attempt * 2) * (0.5 + Math.random())));
      }
    }
  }

  /**
   * Appends events decided elsewhere (an import of exported streams) at `expectedVersion`, through the same
   * fold and inline projections as a decided write; a stream that is not a session's is appended as it is.
   */
  async appendRecorded(
    streamId: string,
    events: readonly NewEvent[],
    expectedVersion: number,
    /** The events as a fold reads them, when `events` are stored forms (sealed content: an import); default `events`. */
    readable: readonly NewEvent[] = events,
    /**
     * With stored forms written to the unsealing store (an import): the session's data key, which the inline read
     * models seal the title and pending prompt with (the sealing store adds it itself). Null: the session has none.
     */
    dataKey?: Buffer | null,
  ): Promise<AppendResult> {
    const sessionId = fromSessionStreamId(streamId);
    if (sessionId === null) return this.store.append(streamId, events, { expectedVersion });
    let loaded = await this.views.loadLatest(sessionId);
    if (loaded.version !== expectedVersion && !loaded.fresh) loaded = await this.views.load(sessionId);
    // One fold for the whole batch: it owns its intermediate states, so a journal chunk is copied once, not per event.
    const state: SessionState =
      loaded.version === expectedVersion ? evolveAll(loaded.state, readable.map((event) => toDomainEvent(event) as SessionEvent)) : loaded.state;
    // A mismatch fails the append's version check below; the state handed along is then never committed.
    const context: SessionAppendContext = dataKey === undefined ? { state } : { state, dataKey };
    const result = await this.store.append(streamId, events, { expectedVersion, context });
    this.views.remember(sessionId, result.version, state);
    return result;
  }

  /** Appends the decision's events after `loaded.version` with the evolved state for the inline projections. */
  private async append(
    sessionId: string,
    loaded: LoadedState,
    decision: WriteDecision,
    keys: readonly string[],
    { requestId, durability }: WriteOptions,
  ): Promise<{ version: number; durable: boolean }> {
    // One fold for the whole decision: it owns its intermediate states, so a journal chunk is copied once, not per event.
    const state: SessionState = evolveAll(loaded.state, decision.events);
    const context: SessionAppendContext = { state };
    const metadata = requestId ? { requestId } : {};
    const result = await this.store.append(
      toSessionStreamId(sessionId),
      // An event of a type past schema 1 says its version (`schemaStampOf`), so a later Chronicle upcasts it right.
      decision.events.map((event) => ({ type: event.type, data: event.data, metadata: stamped(event.type, metadata) })),
      { expectedVersion: loaded.version, idempotencyKeys: keys, context, durability },
    );
    this.views.remember(sessionId, result.version, state);
    this.options.onCommitted?.(sessionId, result.version);
    return { version: result.version, durable: result.durable };
  }
}

function stamped(type: string, metadata: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const stamp = schemaStampOf(type);
  return stamp.schema === undefined ? metadata : { ...metadata, ...stamp };
}
