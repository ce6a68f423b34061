import pg from 'pg';
import { keystoreUrlFor, MasterKeys, openKeyring } from '../libs/event-store/src/index.js';
import { auditAll } from '../libs/read-models/src/index.js';
import { runAsScript } from './run-as-script.js';

/**
 * The whole-store audit as `audit.bench.ts` measures it: a process of its own that loads only what auditing
 * needs (pg and the read models, not the seeding's event store and migrations), so its peak RSS is the
 * audit's. Prints one JSON line: events, seconds, CPU seconds of all its threads, peak RSS, mismatches.
 * BENCH_AUDIT_MASTER_KEY (when set): the store's content is sealed; the session data keys are read from
 * `<database>_keys` (the service's default key store) with this master key, as `chronicle audit` opens them.
 */
async function main(): Promise<void> {
  const url = process.env.DATABASE_URL!;
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  const masterKey = process.env.BENCH_AUDIT_MASTER_KEY;
  const keyring = masterKey ? await openKeyring(keystoreUrlFor(url), MasterKeys.parse(masterKey)) : null;
  try {
    const workers = process.env.BENCH_AUDIT_WORKERS ? Number(process.env.BENCH_AUDIT_WORKERS) : undefined;
    const report = await auditAll({ pool, keyring }, { ...(workers === undefined ? {} : { workers }) });
    const usage = process.resourceUsage();
    const peakRssMb = usage.maxRSS / 1024;
    const cpuSeconds = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
    const { eventsReplayed: events, seconds, mismatches } = report;
    process.stdout.write(JSON.stringify({ events, seconds, cpuSeconds, peakRssMb, mismatches: mismatches.length }));
  } finally {
    await pool.end();
    await keyring?.close();
  }
}

runAsScript(import.meta.url, () => main());
