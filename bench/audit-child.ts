import pg from 'pg';
import { auditAll } from '../libs/read-models/src/index.js';
import { runAsScript } from './run-as-script.js';

/**
 * The whole-store audit as `audit.bench.ts` measures it: a process of its own that loads only what auditing
 * needs (pg and the read models, not the seeding's event store and migrations), so its peak RSS is the
 * audit's. Prints one JSON line: events, seconds, CPU seconds of all its threads, peak RSS, mismatches.
 */
async function main(): Promise<void> {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 6 });
  try {
    const workers = process.env.BENCH_AUDIT_WORKERS ? Number(process.env.BENCH_AUDIT_WORKERS) : undefined;
    const report = await auditAll({ pool }, { ...(workers === undefined ? {} : { workers }) });
    const usage = process.resourceUsage();
    const peakRssMb = usage.maxRSS / 1024;
    const cpuSeconds = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
    const { eventsReplayed: events, seconds, mismatches } = report;
    process.stdout.write(JSON.stringify({ events, seconds, cpuSeconds, peakRssMb, mismatches: mismatches.length }));
  } finally {
    await pool.end();
  }
}

runAsScript(import.meta.url, () => main());
