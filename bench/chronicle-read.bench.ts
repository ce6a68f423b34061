import { readFileSync } from 'node:fs';
import { API_KEY } from './chronicle-ingest.bench.js';
import { encodeRequest } from './http-load.js';
import { httpCall } from './service-process.js';

/**
 * Reads and memory of the real service (issue 10): one session of `messages` committed rows whose display
 * transcript a crowd of clients reads (in full, or revalidating with `If-None-Match` → 304), and a store of
 * many sessions ingested over HTTP after which the service's resident memory is read from /proc.
 */
const AUTH = { Authorization: `Bearer ${API_KEY}` };
const START = 1_780_000_000;

export interface ReadTarget {
  readonly path: string;
  readonly etag: string;
  readonly bytes: number;
}

async function call(port: number, method: string, path: string, body?: unknown) {
  const answer = await httpCall(port, method, path, body, AUTH);
  if (answer.status < 200 || answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return answer;
}

/** A session of `messages` rows (1,000 per request), read once so its answer is cached like any read one. */
export async function prepareReadSession(port: number, sessionId: string, messages: number): Promise<ReadTarget> {
  await call(port, 'POST', '/v1/sessions', { sessionId, title: `read ${sessionId}`, createdAt: START });
  for (let at = 0; at < messages; at += 1000) {
    const rows = Array.from({ length: Math.min(1000, messages - at) }, (_, i) => ({
      role: (at + i) % 2 === 0 ? 'user' : 'assistant',
      content: `message ${at + i}: ${'lorem ipsum dolor sit amet, consectetur adipiscing elit '.repeat(2)}`,
      timestamp: START + at + i,
    }));
    await call(port, 'POST', `/v1/sessions/${sessionId}/messages`, { rows });
  }
  const path = `/v1/sessions/${sessionId}/transcript?view=display`;
  const read = await call(port, 'GET', path);
  return { path, etag: String(read.headers.etag), bytes: Buffer.byteLength(read.body) };
}

export const readRequest = (target: ReadTarget, port: number, revalidate: boolean): Buffer =>
  encodeRequest({ method: 'GET', path: target.path, headers: revalidate ? { ...AUTH, 'If-None-Match': target.etag } : AUTH }, port);

/**
 * `count` sessions of `events` events each (a start, a submission, the journal in POSTs of up to 100 token
 * events, a settle), `parallel` sessions at a time.
 */
export async function ingestSessions(port: number, prefix: string, count: number, events: number, parallel = 8): Promise<void> {
  let next = 0;
  const one = async (index: number): Promise<void> => {
    const sessionId = `${prefix}-${index}`;
    const runId = `${sessionId}-run`;
    await call(port, 'POST', '/v1/sessions', { sessionId, title: `memory ${index}`, createdAt: START });
    await call(port, 'POST', `/v1/sessions/${sessionId}/submissions`, { runId, text: `prompt ${index}`, submittedAt: START + 1 });
    const tokens = events - 3;
    for (let seq = 1; seq <= tokens; seq += 100) {
      const batch = Array.from({ length: Math.min(100, tokens - seq + 1) }, (_, i) => ({ seq: seq + i, event: 'token', payload: { text: `w${seq + i} ` }, createdAt: START + 2 }));
      await call(port, 'POST', `/v1/sessions/${sessionId}/runs/${runId}/journal`, { events: batch });
    }
    await call(port, 'POST', `/v1/sessions/${sessionId}/runs/${runId}/settle`, {
      rows: [
        { role: 'user', content: `prompt ${index}`, timestamp: START + 1 },
        { role: 'assistant', content: 'answer', timestamp: START + 3 },
      ],
      settledAt: START + 3,
    });
  };
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await one(next++);
    }),
  );
}

/** Resident memory now and at its peak (VmRSS, VmHWM) of a process, in MB. */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(/\s(\d+) kB/.exec(status.split('\n').find((line) => line.startsWith(field)) ?? '')?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS:') / 1024, peakMb: kb('VmHWM:') / 1024 };
}
