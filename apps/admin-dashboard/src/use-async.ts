import { useCallback, useEffect, useRef, useState } from 'react';

export interface AsyncState<T> {
  /** The answer of the last run, or undefined once a run failed: an old answer is never shown under a newer error. */
  readonly data: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  /**
   * Whether `data` and `error` answer the current `deps` (a `reload` keeps them current). While the run of new
   * deps is under way they still hold the previous deps' outcome: a caller that must not show it checks this.
   */
  readonly current: boolean;
  reload(): void;
}

const sameDeps = (a: readonly unknown[] | undefined, b: readonly unknown[]) => a !== undefined && a.length === b.length && a.every((value, i) => Object.is(value, b[i]));

/**
 * Runs `load` when `deps` change (and on `reload`); a late answer of an older run is dropped. A failed run
 * clears the data: the error is what the service says now, and whatever it answered before no longer holds.
 */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean; deps: readonly unknown[] | undefined }>({
    data: undefined,
    error: undefined,
    loading: true,
    deps: undefined,
  });
  const [tick, setTick] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    const controller = new AbortController();
    const runDeps = deps;
    setState((s) => ({ ...s, loading: true }));
    loader
      .current(controller.signal)
      .then((data) => !controller.signal.aborted && setState({ data, error: undefined, loading: false, deps: runDeps }))
      .catch((error) => !controller.signal.aborted && setState({ data: undefined, error, loading: false, deps: runDeps }));
    return () => controller.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, current: sameDeps(state.deps, deps), reload };
}
