import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchCluster } from './bench-postgres.js';
import { journalRequest, metricValue, prepareJournalClients, startChronicle, type Chronicle } from './chronicle-ingest.bench.js';
import { memoryOf } from './chronicle-read.bench.js';
import { runHttpLoad } from './http-load.js';
import { clusterCpuMs, processCpuMs } from './proc-cpu.js';
import { runAsScript } from './run-as-script.js';

/**
 * What happens when the sessions being written hold more fold state than the cache allows (README, "Memory";
 * `npm run bench:state-cache`, not part of `npm run bench`): two Chronicles on one bench PostgreSQL, one with the
 * default CHRONICLE_VIEW_CACHE_BYTES (64 MiB: 32 MiB of fold states) and one with 128 MiB; on each, ROUNDS rounds of 4
 * clients streaming 100-event journal POSTs for SECONDS seconds (1 s of warm-up), each round on 4 new sessions.
 * Four sessions past ~65,000 tokens into their turns outgrow 32 MiB (128 bytes an event), and from then on each
 * append may find its session's state dropped: the table shows events/s, the service's CPU per event, the state reloads
 * and the events they read back (`chronicle_view_state_reloads_total`, `…_reload_events_total`) and the RSS. Each
 * round starts once both services are quiet (what the round before left behind runs on the same cores).
 */
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const ROUNDS = Number(process.env.BENCH_STATE_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_STATE_SECONDS ?? 10);
const CLIENTS = 4;
const EVENTS = 100;

interface Round {
  readonly budget: string;
  readonly round: number;
  readonly eventsPerSecond: number;
  readonly cpuUsPerEvent: number;
  readonly reloads: number;
  readonly reloadEvents: number;
  readonly rssMb: number;
}

async function roundOn(chronicle: Chronicle, budget: string, round: number): Promise<Round> {
  const clients = await prepareJournalClients(chronicle.port, `state-${budget.replace(/\W+/g, '-')}-r${round}`, CLIENTS);
  const [reloadsBefore, eventsBefore] = await Promise.all([
    metricValue(chronicle.port, 'chronicle_view_state_reloads_total'),
    metricValue(chronicle.port, 'chronicle_view_state_reload_events_total'),
  ]);
  let cpuBefore = 0;
  const load = await runHttpLoad({
    port: chronicle.port,
    connections: CLIENTS,
    durationMs: SECONDS * 1000,
    warmupMs: 1000,
    requestTimeoutMs: 60_000,
    request: (client) => journalRequest(clients[client], EVENTS, chronicle.port),
    onWindowStart: () => (cpuBefore = processCpuMs(chronicle.service.pid)),
  });
  if (load.non2xxTotal > 0 || load.errors > 0) throw new Error(`${budget} round ${round}: ${load.non2xxTotal} non-2xx, ${load.errors} errors (${load.firstNon2xx ?? load.firstError})`);
  const events = load.ok * EVENTS;
  const cpu = processCpuMs(chronicle.service.pid) - cpuBefore;
  const [reloads, reloadEvents] = await Promise.all([
    metricValue(chronicle.port, 'chronicle_view_state_reloads_total'),
    metricValue(chronicle.port, 'chronicle_view_state_reload_events_total'),
  ]);
  return {
    budget,
    round,
    eventsPerSecond: Math.round(load.requestsPerSecond * EVENTS),
    cpuUsPerEvent: (cpu / events) * 1000,
    reloads: reloads - reloadsBefore,
    reloadEvents: reloadEvents - eventsBefore,
    rssMb: memoryOf(chronicle.service.pid).rssMb,
  };
}

/** Until every service and PostgreSQL each used under 5 % of a core over half a second (30 s at most). */
async function quiet(cpuOf: readonly (() => number)[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const before = cpuOf.map((cpu) => cpu());
    await sleep(500);
    if (cpuOf.every((cpu, i) => cpu() - before[i] < 25)) return;
  }
}

async function main(): Promise<void> {
  const cluster = await startBenchCluster();
  const workDir = mkdtempSync(join(tmpdir(), 'chronicle-state-cache-'));
  const services: Chronicle[] = [];
  try {
    const budgets = [
      ['64 MiB (default)', {}],
      ['128 MiB', { CHRONICLE_VIEW_CACHE_BYTES: String(128 * 1024 * 1024) }],
    ] as const;
    for (const [i, [, env]] of budgets.entries()) services.push(await startChronicle(await cluster.createDatabase(`state_cache_${i}`), join(workDir, `s${i}`), env));
    const rounds: Round[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      // The two services take turns, so the host's drift falls on both.
      for (const [i, [budget]] of budgets.entries()) {
        // What a round leaves behind (the session index catching up, reloads, snapshots) runs on the same cores:
        // each round starts once both services are quiet.
        await quiet([...services.map((s) => () => processCpuMs(s.service.pid)), () => clusterCpuMs(cluster.postmasterPid())]);
        const one = await roundOn(services[i], budget, round);
        rounds.push(one);
        console.error(`  ${budget} round ${round}: ${one.eventsPerSecond} events/s, ${one.reloads} reloads`);
      }
    }
    console.log('| CHRONICLE_VIEW_CACHE_BYTES | round | events/s | service CPU µs/event | state reloads | events they read | RSS after (MB) |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const r of rounds) {
      console.log(`| ${r.budget} | ${r.round} | ${r.eventsPerSecond.toLocaleString('en-US')} | ${r.cpuUsPerEvent.toFixed(1)} | ${r.reloads} | ${r.reloadEvents.toLocaleString('en-US')} | ${Math.round(r.rssMb)} |`);
    }
  } finally {
    for (const service of services) await service.service.stop();
    cluster.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

runAsScript(import.meta.url, main);
