import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type AuditBatch, AuditBatchProcessor, type BatchResult } from './audit-batch.processor.js';

/** A place batches are folded: a worker thread, or this thread when there is none. Keeps the batches in order. */
export interface AuditLane {
  readonly inFlight: number;
  run(batch: AuditBatch): Promise<BatchResult>;
  close(): Promise<void>;
}

const WORKER_URL = new URL('./audit.worker.js', import.meta.url);

/**
 * A worker thread per core beyond this one's, at least one: this thread reads (waiting on PostgreSQL, whose
 * backend needs a core's share as well) while the workers fold and compare. On 2 cores a second worker would only
 * compete with this thread and PostgreSQL, and each worker is a V8 isolate with heaps of its own (bench/README.md).
 * Where the compiled worker is absent (the sources run under a test runner) the batches are folded on this
 * thread, between reads.
 */
export function defaultWorkerCount(): number {
  if (!existsSync(fileURLToPath(WORKER_URL))) return 0;
  return Math.max(1, availableParallelism() - 1);
}

class InlineLane implements AuditLane {
  private readonly processor = new AuditBatchProcessor();
  private queue: Promise<unknown> = Promise.resolve();
  inFlight = 0;

  run(batch: AuditBatch): Promise<BatchResult> {
    this.inFlight += 1;
    const done = this.queue.then(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      try {
        return this.processor.process(batch);
      } finally {
        this.inFlight -= 1;
      }
    });
    this.queue = done.catch(() => undefined);
    return done;
  }

  async close(): Promise<void> {
    await this.queue;
  }
}

class WorkerLane implements AuditLane {
  // A bounded heap: V8 would otherwise grow each worker's heap far past what a few batches need (RSS ≤ 200 MB).
  // The young generation at 24 MB: a batch's links die young (fed in slices), and what a slice's fold keeps a
  // while dies before the next scavenge more often than at 8 MB (~3 MB semi-spaces, a scavenge every ~3 MB,
  // ~11 % of the worker's time): a faster audit for a higher peak RSS (bench/README.md).
  private readonly worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 24 } });
  private readonly waiting: { resolve: (r: BatchResult) => void; reject: (e: Error) => void }[] = [];
  inFlight = 0;

  constructor() {
    this.worker.on('message', (message: { ok: true; result: BatchResult } | { ok: false; error: string }) => {
      this.inFlight -= 1;
      const next = this.waiting.shift();
      if (message.ok) next?.resolve(message.result);
      else next?.reject(new Error(`audit worker: ${message.error}`));
    });
    this.worker.on('error', (error) => {
      for (const w of this.waiting.splice(0)) w.reject(error);
    });
  }

  run(batch: AuditBatch): Promise<BatchResult> {
    this.inFlight += 1;
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(batch);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

export function openLanes(workers: number): AuditLane[] {
  if (workers <= 0) return [new InlineLane()];
  return Array.from({ length: workers }, () => new WorkerLane());
}

/** The lane with the fewest batches in flight. */
export const leastBusy = (lanes: readonly AuditLane[]): AuditLane =>
  lanes.reduce((best, lane) => (lane.inFlight < best.inFlight ? lane : best));
