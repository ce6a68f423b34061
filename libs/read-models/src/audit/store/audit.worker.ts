import { parentPort } from 'node:worker_threads';
import { type AuditBatch, AuditBatchProcessor } from './audit-batch.processor.js';

/** Worker thread of the whole-store audit: folds and compares the batches the reading thread sends. */
const processor = new AuditBatchProcessor();
parentPort?.on('message', (batch: AuditBatch) => {
  try {
    parentPort?.postMessage({ ok: true, result: processor.process(batch) });
  } catch (error) {
    parentPort?.postMessage({ ok: false, error: error instanceof Error ? error.stack ?? error.message : String(error) });
  }
});
