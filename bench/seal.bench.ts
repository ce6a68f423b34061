import { createCipheriv, randomBytes } from 'node:crypto';
import { openText, sealText } from '../libs/event-store/src/sealing/content-seal.js';
import { runAsScript } from './run-as-script.js';

/**
 * What sealing costs per call, apart from everything else (`npm run bench:seal`): the landed `sealText` and
 * `openText` (AES-256-GCM from node:crypto, IVs from a pool) on a journal token's content, and for reference a
 * seal that draws each IV with `randomBytes(12)` (what the pool replaced). Median of 5 rounds of 100,000 calls.
 */
const STREAM = 'session-bench';
const TYPE = 'JournalEventRecorded';
const TEXT = JSON.stringify({ payload: { text: ' token-123' } });

function perCall(calls: number, fn: () => unknown): number {
  for (let i = 0; i < 10_000; i += 1) fn();
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
  const runs = new Map<string, number[]>();
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, fn] of Object.entries(shapes)) runs.set(name, [...(runs.get(name) ?? []), perCall(calls, fn)]);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  return Object.fromEntries([...runs].map(([name, values]) => [name, median(values)]));
}

async function main(): Promise<void> {
  for (const [name, us] of Object.entries(runSealBench())) console.log(`${name.padEnd(32)} ${us.toFixed(2)} µs/call (median of 5 × 100,000)`);
}

runAsScript(import.meta.url, main);
