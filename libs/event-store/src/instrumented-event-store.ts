import {
  type AppendOptions,
  type AppendResult,
  ConcurrencyError,
  type EventStore,
  IdempotencyKeyTaken,
  type NewEvent,
} from './event-store.js';

export interface AppendObserver {
  appended(result: { outcome: 'ok' | 'conflict' | 'duplicate' | 'error'; seconds: number; types: readonly string[] }): void;
}

/** Decorates a store with append metrics (count by outcome, latency) without touching its logic. */
export function instrumentEventStore(store: EventStore, observer: AppendObserver): EventStore {
  const append = async (streamId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult> => {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const result = await store.append(streamId, events, options);
      observer.appended({ outcome: 'ok', seconds: seconds(), types: events.map((e) => e.type) });
      return result;
    } catch (error) {
      const outcome =
        error instanceof ConcurrencyError ? 'conflict' : error instanceof IdempotencyKeyTaken ? 'duplicate' : 'error';
      observer.appended({ outcome, seconds: seconds(), types: [] });
      throw error;
    }
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'append') return append;
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
