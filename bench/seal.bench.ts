import { createCipheriv, randomBytes } from 'node:crypto';
import { openText, readableEventsData, sealEventData, sealEventsData, sealText } from '../libs/event-store/src/sealing/content-seal.js';
import { runAsScript } from './run-as-script.js';

/**
 * What sealing costs per call, apart from everything else (`npm run bench:seal`): the landed `sealText` and
 * `openText` (AES-256-GCM from node:crypto, IVs from a pool) on a journal token's content, and for reference a
 * seal that draws each IV with `randomBytes(12)` (what the pool replaced); then a 100-event append of journal
 * tokens sealed one event at a time against as runs (`sealEventsData`, 64 + 36), and read back (`readableEventsData`),
 * per event. Median of 5 rounds of 100,000 calls (1,000 appends of 100 events).
 */
const STREAM = 'session-bench';
const TYPE = 'JournalEventRecorded';
const TEXT = JSON.stringify({ payload: { text: ' token-123' } });

function perCall(calls: number, fn: () => unknown, warmUp = 10_000): number {
  for (let i = 0; i < warmUp; i += 1) fn();
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i += 1) fn();
  return Number(process.hrtime.bigint() - started) / 1e3 / calls;
}

function sealDrawingEachIv(key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${STREAM}\u0000${TYPE}`));
  const body = Buffer.concat([cipher.update(TEXT, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function runSealBench(rounds = 5, calls = 100_000): Record<string, number> {
  const key = randomBytes(32);
  const sealed = sealText(key, STREAM, TYPE, TEXT);
  const shapes: Record<string, () => unknown> = {
    'seal (landed: pooled IVs)': () => sealText(key, STREAM, TYPE, TEXT),
    'seal, randomBytes(12) per IV': () => sealDrawingEachIv(key),
    'open (landed)': () => openText(key, STREAM, TYPE, sealed),
  };
  const append = Array.from({ length: 100 }, (_, i) => ({ type: TYPE, data: { runId: 'r', seq: i + 1, event: 'token', payload: { text: ` token-${i}` } } }));
  const asRead = (stored: readonly unknown[]) => stored.map((data) => ({ type: TYPE, data, schema: 1 }));
  const eachAlone = asRead(append.map((event) => sealEventData(key, STREAM, TYPE, event.data)));
  const asRun = asRead(sealEventsData(key, STREAM, append));
  // A shape's call handles 100 events: timed at a hundredth of the calls, reported per event.
  const perEvent: Record<string, () => unknown> = {
    'append of 100, each event alone': () => append.map((event) => sealEventData(key, STREAM, TYPE, event.data)),
    'append of 100, as runs': () => sealEventsData(key, STREAM, append),
    'read of 100, each event alone': () => readableEventsData(key, STREAM, eachAlone),
    'read of 100, as runs': () => readableEventsData(key, STREAM, asRun),
  };
  const runs = new Map<string, number[]>();
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, fn] of Object.entries(shapes)) runs.set(name, [...(runs.get(name) ?? []), perCall(calls, fn)]);
    for (const [name, fn] of Object.entries(perEvent)) runs.set(name, [...(runs.get(name) ?? []), perCall(calls / 100, fn, 100) / 100]);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  return Object.fromEntries([...runs].map(([name, values]) => [name, median(values)]));
}

async function main(): Promise<void> {
  for (const [name, us] of Object.entries(runSealBench())) console.log(`${name.padEnd(34)} ${us.toFixed(2)} µs/${name.includes('of 100') ? 'event' : 'call'} (median of 5)`);
}

runAsScript(import.meta.url, main);
