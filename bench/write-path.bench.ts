import pg from 'pg';
import { runMigrations } from '../libs/platform/src/index.js';
import { createSessionEventStore, SessionViews, SnapshotStore } from '../libs/read-models/src/index.js';
import { executeSessionCommand, SessionWriter } from '../libs/session-commands/src/index.js';
import { startBenchCluster } from './bench-postgres.js';
import { clusterCpuMs, processCpuMs } from './proc-cpu.js';
import { runAsScript } from './run-as-script.js';

/**
 * The write path without HTTP (issue 9): `writers` concurrent loops, each streaming 1-event journal appends into
 * its own session through the service's own parts — `executeSessionCommand` on a `SessionWriter` over
 * `SessionViews` and a `PostgresEventStore` with the service's inline projections (summary row, live NOTIFY),
 * a pipelined pool of 10 — as the journal route's handler does, minus Nest, Fastify, zod and auth. Its CPU per
 * event beside the HTTP figures says how much of Chronicle's cost is the HTTP shell and how much the write path,
 * and how the write path's cost falls as group commits grow (1 writer: one transaction per event).
 * The caller measures PostgreSQL's CPU (`pgCpu`); this process's CPU is the write path's (nothing else runs).
 * `npm run bench:write-path` runs it alone on a cluster of its own.
 */
export interface WritePathFigures {
  readonly eventsPerSecond: number;
  /** utime+stime of this process (all threads) per event. */
  readonly nodeCpuMsPerEvent: number;
  readonly pgCpuMsPerEvent: number;
  /** Events per group-commit transaction, on average. */
  readonly eventsPerCommit: number;
}

const START = 1_780_000_000;
/** Each run streams into sessions of its own, also on a database an earlier run used. */
let runs = 0;

export async function runWritePathBench(options: {
  readonly databaseUrl: string;
  readonly writers: number;
  readonly durationMs: number;
  readonly warmupMs: number;
  readonly pgCpu: () => number;
}): Promise<WritePathFigures> {
  await runMigrations(options.databaseUrl);
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10, pipeline: true });
  let commits = 0;
  try {
    const store = await createSessionEventStore(pool, { onBatch: () => (commits += 1) });
    const views = new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: 200 });
    const writer = new SessionWriter(store, views);
    runs += 1;
    const ids = Array.from({ length: options.writers }, (_, i) => `write-path-${runs}-${options.writers}-${i}`);
    for (const sessionId of ids) {
      await executeSessionCommand(writer, sessionId, { type: 'StartSession', data: { sessionId, title: 'write path', parentSessionId: null, createdAt: START } });
      await executeSessionCommand(writer, sessionId, { type: 'SubmitMessage', data: { runId: 'run', text: 'go on', submittedAt: START + 1 } });
    }
    let done = 0;
    let stopped = false;
    const loops = ids.map(async (sessionId) => {
      for (let seq = 1; !stopped; seq += 1) {
        const events = [{ seq, event: 'token', payload: { text: ` w${seq}` }, createdAt: START + 2 }];
        await executeSessionCommand(writer, sessionId, { type: 'RecordJournalEvents', data: { runId: 'run', events } }, { requestId: `r${seq}` });
        done += 1;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, options.warmupMs));
    const before = { done, commits, node: processCpuMs(process.pid), pg: options.pgCpu(), at: performance.now() };
    await new Promise((resolve) => setTimeout(resolve, options.durationMs));
    const after = { done, commits, node: processCpuMs(process.pid), pg: options.pgCpu(), at: performance.now() };
    stopped = true;
    await Promise.all(loops);
    const events = after.done - before.done;
    return {
      eventsPerSecond: events / ((after.at - before.at) / 1000),
      nodeCpuMsPerEvent: (after.node - before.node) / events,
      pgCpuMsPerEvent: (after.pg - before.pg) / events,
      eventsPerCommit: events / Math.max(1, after.commits - before.commits),
    };
  } finally {
    await pool.end();
  }
}

runAsScript(import.meta.url, async () => {
  const cluster = await startBenchCluster();
  try {
    const url = await cluster.createDatabase('write_path');
    for (const writers of [1, 16, 64]) {
      const result = await runWritePathBench({ databaseUrl: url, writers, durationMs: 4000, warmupMs: 1000, pgCpu: () => clusterCpuMs(cluster.postmasterPid()) });
      console.log(
        `${String(writers).padStart(2)} writers: ${Math.round(result.eventsPerSecond)} events/s, ${result.eventsPerCommit.toFixed(1)} per commit, ` +
          `Node ${result.nodeCpuMsPerEvent.toFixed(3)} + PostgreSQL ${result.pgCpuMsPerEvent.toFixed(3)} ms/event`,
      );
    }
  } finally {
    cluster.stop();
  }
});
