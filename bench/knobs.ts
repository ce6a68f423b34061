/**
 * The load knobs of `npm run bench` and `npm run bench:citus` (bench/README.md): BENCH_SECONDS (measured load
 * per figure, default 4), BENCH_RUNS (default 3), BENCH_WARMUP_MS (default 1000).
 */
const envNumber = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
export const SECONDS = envNumber('BENCH_SECONDS', 4);
export const RUNS = Math.round(envNumber('BENCH_RUNS', 3));
export const WARMUP_MS = envNumber('BENCH_WARMUP_MS', 1000);
export const DURATION_MS = SECONDS * 1000;
/** After a CPU-sampled window: lets deferred work (snapshots, the projector's 1 s tick) land in the sample. */
export const SETTLE_MS = 1500;
