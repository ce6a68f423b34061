import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the heap grow past what a full collection left alive before it collects again, in percent
 * (`--heap-growing-percent`). V8's own factor moves between 1.1 and 4 with its speed estimates. On the bench's
 * socket ingest (sessions tens of thousands of tokens deep in their turns) the service's live heap was ~60 MB
 * (a heap snapshot) while its resident memory climbed to 390–430 MB: garbage waiting in the old generation. At
 * 100 (collect when the heap is twice what survived) the same phases peaked at 294 MB against 430; events/s and
 * CPU per event stayed within the spread between runs. At 20 the peak was ~210 MB but each 1-event append cost
 * ~30 % more of the service's CPU. bench/README.md, "V8's heap growing factor".
 */
export const DEFAULT_HEAP_GROWING_PERCENT = 100;

const GIVEN_TO_NODE = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * Sets V8's heap growing factor for this process (`percent`; 0 leaves V8's own). A factor given to node itself
 * (`node --heap-growing-percent=… main.js`) wins. V8 reads the flag each time a collection sets the next limit,
 * so setting it after start takes effect from the next full collection. Returns what was set, or null.
 */
export function limitHeapGrowth(percent: number, execArgv: readonly string[] = process.execArgv): number | null {
  if (percent <= 0 || execArgv.some((arg) => GIVEN_TO_NODE.test(arg))) return null;
  setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
  return Math.round(percent);
}
