import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAppendBench } from './append.bench.js';
import { freePort } from '../libs/platform/src/net/free-port.js';
import { startBenchCluster, type BenchCluster } from './bench-postgres.js';
import { API_KEY, busyMs, journalMessage, journalRequest, prepareJournalClients, projectorBusyMs, startChronicle, type JournalClient } from './chronicle-ingest.bench.js';
import { ingestSessions, memoryOf, prepareReadSession, readRequest, type ReadTarget } from './chronicle-read.bench.js';
import { runFoldBenchInChild } from './fold.bench.js';
import { runImportBench } from './import.bench.js';
import { runAuditBench, runAuditEncryptionBench, sealedShare } from './audit.bench.js';
import { citusCapacity, citusRows, citusSkipped, startCitusSection, type CitusSection } from './citus.bench.js';
import { runMigrations } from '../libs/platform/src/index.js';
import { runViewBench } from './view.bench.js';
import { runDashboardBench, seedDashboardSession } from './dashboard.bench.js';
import { runWritePathBench } from './write-path.bench.js';
import { encodeRequest, runHttpLoad } from './http-load.js';
import { openIdleSockets, runSocketLoad } from './socket-load.js';
import { type EmmettPeer, startEmmettPeer } from './emmett-peer.js';
import { clusterCpuMs, machineBusyJiffies, type MachineJiffies, machineJiffies, processCpuMs, stealPercent } from './proc-cpu.js';
import { createEventsTable, runRawInsert } from './raw-insert.bench.js';
import { renderTable, verdicts, type ResultRow } from './results-table.js';
import { Samples } from './samples.js';
import { DURATION_MS, RUNS, SECONDS, SETTLE_MS, WARMUP_MS } from './knobs.js';
import { killAllServiceProcesses, startServiceProcess, waitForHttp, type ServiceProcess } from './service-process.js';

/**
 * `npm run bench`: builds (package.json), then this orchestrator starts its own durable PostgreSQL 15, the
 * servers under test as child processes, and runs every phase RUNS times, interleaved round by round (so a
 * figure and its baseline are measured close in time on a shared machine). It prints one table and writes
 * bench/RESULTS.md. Progress goes to stderr. Development knobs: BENCH_SECONDS (load per figure, default 4),
 * BENCH_RUNS (default 3), BENCH_WARMUP_MS (default 1000).
 *
 * The load clients (HTTP and raw pg) run in this process's main thread; every server under test is its own
 * process, so its CPU (from /proc) never includes the client's. The client still shares the cores with the
 * servers, as any placement on this machine would; its own ceiling is a row of the table.
 */
/** Concurrent writers of the write-path bench (no HTTP): one transaction per event, and group commits. */
const WRITE_PATH_WRITERS = [1, 16, 64] as const;
const RESULTS_FILE = fileURLToPath(new URL('../../bench/RESULTS.md', import.meta.url));

const startedAt = performance.now();
const progress = (message: string): void => {
  process.stderr.write(`[bench ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The reads wait for the machine's share of busy CPU (all cores) over one second to fall to this, percent… */
const READS_QUIET_PERCENT = 15;
/** …for at most this long, ms. */
const READS_QUIET_MAX_MS = 30_000;

/**
 * Waits until the machine's busy share over one second is at most `percent` (or `maxMs` passed): the deferred work
 * of earlier phases (PostgreSQL's autovacuum after the ingest rounds, the audited twin's continuous auditor) done.
 * Answers how long it waited and the busy share of the last second (percent of all cores).
 */
async function untilMachineQuiet(percent: number, maxMs: number): Promise<{ waitedMs: number; busyPercent: number }> {
  const from = performance.now();
  let busyPercent = Number.NaN;
  for (let last = machineBusyJiffies(); last !== null && performance.now() - from < maxMs; ) {
    await sleep(1000);
    const now = machineBusyJiffies();
    if (now === null || now.total <= last.total) break;
    busyPercent = (100 * (now.busy - last.busy)) / (now.total - last.total);
    last = now;
    if (busyPercent <= percent) break;
  }
  return { waitedMs: performance.now() - from, busyPercent };
}

/** Per-run samples by figure id (NaN where a run failed), the answer checks of the HTTP figures, the phases' errors. */
const samples = new Samples(RUNS, progress);
const { record, runsOf, ratioRuns, check, checkText, errors } = samples;
/**
 * The main Chronicle service's peak RSS (VmHWM) read after every phase, and the phase during which it last rose;
 * `recorded`: that phase as of the memory phase, whose peak RESULTS.md's peak row shows (later phases go on).
 */
const peakWatch = { pid: 0, mb: 0, phase: '', recorded: '' };
const step = async (name: string, fn: () => Promise<void>): Promise<void> => {
  await samples.step(name, fn);
  if (peakWatch.pid === 0) return;
  try {
    const { peakMb } = memoryOf(peakWatch.pid);
    if (peakMb <= peakWatch.mb + 1) return;
    Object.assign(peakWatch, { mb: peakMb, phase: name });
    progress(`  service peak RSS now ${peakMb.toFixed(0)} MB (rose during "${name}")`);
  } catch {
    // The service is gone (its phase failed): nothing to read.
  }
};
/**
 * The continuous auditor's on/off throughput ratio of every back-to-back pair of twin runs (four a round). The
 * host's speed moves between runs seconds apart by more than the 5 % the target is about, and a disturbance
 * that lasts a few runs moves a round's means with it (bench/README.md, phase 6b): the pairs, each measured
 * under the same conditions, and their median are the estimate the target reads.
 */
const auditorPairRatios: number[] = [];
/** The encryption twins' stores read back (issue 30): how many of their events hold sealed content, for the Checks column. */
const encryptionStores: Record<'ingestSealed' | 'ingestPlain' | 'auditSealed' | 'auditPlain', string> = {
  ingestSealed: '',
  ingestPlain: '',
  auditSealed: '',
  auditPlain: '',
};
/** The encryption twins' ingest shapes (issue 30): figure ids `sealed<shape>` and `plain<shape>`. */
const ENCRYPTION_SHAPES = [
  ['1x16', 16, 1],
  ['100x4', 4, 100],
] as const;

let cluster: BenchCluster | undefined;
let workDir: string | undefined;
/** The Citus section (its own cluster and services), when it started. */
let citus: CitusSection | undefined;
let cleanedUp = false;
function cleanup(): void {
  if (cleanedUp) return;
  cleanedUp = true;
  killAllServiceProcesses();
  citus?.stopNow();
  cluster?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}
process.once('exit', cleanup);
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.once(signal, () => {
    progress(`${signal}: stopping the bench cluster and the services`);
    cleanup();
    process.exit(code);
  });
}

interface HttpPhase {
  readonly id: string;
  readonly port: number;
  readonly connections: number;
  readonly eventsPerRequest: number;
  readonly clients: readonly JournalClient[];
  /** CPU-sample these processes over the window (+ settle): `<id>.serviceCpu`, `<id>.pgCpu` ms per event. */
  readonly cpuOf?: ServiceProcess;
  /** Chronicle: also read its projector's busy time from /metrics, as `<id>.projectorShare` of the service CPU. */
  readonly projectorOf?: number;
  /** Another request than the journal POST (then one "event" per answer), and the statuses it expects. */
  readonly request?: (client: number) => Buffer;
  readonly expectStatus?: (status: number) => boolean;
  /** Over `/v1/ingest` instead of HTTP: the journal events as messages, `inFlight` unanswered per connection. */
  readonly socket?: { readonly inFlight: number; readonly extra?: Record<string, unknown> };
}

/** `chronicle_audit_busy_seconds_total`, in ms (the continuous auditor's time in its passes). */
const auditorBusyMs = (port: number): Promise<number> => busyMs(port, 'chronicle_audit_busy_seconds_total');

async function httpPhase(round: number, phase: HttpPhase): Promise<void> {
  let before: { service: number; pg: number } | undefined;
  const projectorBefore = phase.projectorOf === undefined ? 0 : await projectorBusyMs(phase.projectorOf);
  const read = (): { service: number; pg: number } => ({
    service: phase.cpuOf ? processCpuMs(phase.cpuOf.pid) : Number.NaN,
    pg: clusterCpuMs(cluster!.postmasterPid()),
  });
  const onWindowStart = phase.cpuOf ? { onWindowStart: () => (before = read()) } : {};
  const socket = phase.socket;
  const result = socket
    ? await runSocketLoad({
        port: phase.port,
        apiKey: API_KEY,
        connections: phase.connections,
        durationMs: DURATION_MS,
        warmupMs: WARMUP_MS,
        inFlight: socket.inFlight,
        message: (client) => journalMessage(phase.clients[client]!, phase.eventsPerRequest, socket.extra),
        ...onWindowStart,
      })
    : await runHttpLoad({
        port: phase.port,
        connections: phase.connections,
        durationMs: DURATION_MS,
        warmupMs: WARMUP_MS,
        request: phase.request ?? ((client) => journalRequest(phase.clients[client]!, phase.eventsPerRequest, phase.port)),
        ...(phase.expectStatus ? { expectStatus: phase.expectStatus } : {}),
        ...onWindowStart,
      });
  check(phase.id, result);
  const events = result.ok * phase.eventsPerRequest;
  record(`${phase.id}.eventsPerSecond`, round, events / (result.windowMs / 1000));
  record(`${phase.id}.requestsPerSecond`, round, result.requestsPerSecond);
  record(`${phase.id}.p50`, round, result.p50Ms);
  record(`${phase.id}.p99`, round, result.p99Ms);
  if (phase.cpuOf && before) {
    await sleep(SETTLE_MS);
    const after = read();
    record(`${phase.id}.serviceCpu`, round, (after.service - before.service) / events);
    record(`${phase.id}.pgCpu`, round, (after.pg - before.pg) / events);
    record(`${phase.id}.totalCpu`, round, (after.service - before.service + after.pg - before.pg) / events);
    if (phase.projectorOf !== undefined) {
      const busy = (await projectorBusyMs(phase.projectorOf)) - projectorBefore;
      record(`${phase.id}.projectorShare`, round, (100 * busy) / (after.service - before.service));
    }
  }
  const problems = result.non2xxTotal + result.errors > 0 ? `, ${result.non2xxTotal} non-2xx, ${result.errors} errors` : '';
  progress(
    `  ${phase.id}: ${Math.round(events / (result.windowMs / 1000))} events/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms${problems}`,
  );
}

/** Clients for a load on the trivial server or the minimal service: one stream per client, seq from 1. */
const plainClients = (prefix: string, count: number): JournalClient[] =>
  Array.from({ length: count }, (_, i) => ({ sessionId: `${prefix}-c${i}`, runId: 'run', seq: 0 }));

interface AdapterFigures {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly serverCpuMsPerRequest: number;
}
type AdapterBench = (options?: { seconds?: number; connections?: number }) => Promise<{ express: AdapterFigures; fastify: AdapterFigures }>;

/** bench/http-adapters.bench.ts belongs to another change: used when it exists, `n/a` otherwise. */
async function loadAdapterBench(): Promise<AdapterBench | string> {
  const specifier = './http-adapters.bench.js';
  try {
    const module = (await import(specifier)) as { runHttpAdapterBench?: unknown };
    if (typeof module.runHttpAdapterBench !== 'function') return 'http-adapters.bench.js exports no runHttpAdapterBench';
    return module.runHttpAdapterBench as AdapterBench;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes('http-adapters.bench')) return 'not present';
    return `import failed: ${(error as Error).message}`;
  }
}

function machine(settings: Record<string, string>, loadAtStart: number[], jiffiesAtStart: MachineJiffies | null, citusLine: string): string[] {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (dirty) commit += ' (with uncommitted changes)';
  } catch {
    // not a git checkout
  }
  const cpus = os.cpus();
  const load = (values: number[]): string => values.map((v) => v.toFixed(2)).join(' / ');
  const steal = stealPercent(jiffiesAtStart, machineJiffies());
  return [
    `- Date: ${new Date().toISOString()}`,
    `- CPU: ${cpus[0]?.model.trim() ?? 'unknown'}, ${cpus.length} cores (available parallelism ${os.availableParallelism()})`,
    `- Memory: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- OS: ${os.type()} ${os.release()}`,
    `- Node: ${process.version}`,
    `- PostgreSQL: ${settings.server_version ?? 'n/a'} (fsync=${settings.fsync ?? '?'}, synchronous_commit=${settings.synchronous_commit ?? '?'}, full_page_writes=${settings.full_page_writes ?? '?'}; own cluster on 127.0.0.1)`,
    citusLine,
    `- Commit: ${commit}`,
    `- Load: ${SECONDS} s measured after ${WARMUP_MS} ms warm-up per figure, ${RUNS} runs, interleaved`,
    `- Load average (1/5/15 min) at start: ${load(loadAtStart)}; at end: ${load(os.loadavg())}`,
    `- CPU time stolen by the host (steal in /proc/stat, all cores, start to end): ${steal === null ? 'n/a' : `${steal.toFixed(1)} %`}` +
      ' (a virtual machine whose host runs other guests; figures of a run with much steal are low, their ratios less so)',
  ];
}

function rows(adapterNote: string): ResultRow[] {
  const none = (id: string): Pick<ResultRow, 'checks'> => ({ checks: checkText(id) });
  const atLeast = (n: number) => (v: number) => v >= n;
  const ratioAtLeast = (n: number) => (_v: number, r: number) => r >= n;
  /** A count's runs for the Checks column (`n/a` where a run failed). */
  const countsOf = (id: string): string => runsOf(id).map((v) => (Number.isFinite(v) ? String(v) : 'n/a')).join(' / ');
  return [
    { figure: 'Raw INSERT, 1 row/txn, 4 conn', unit: 'rows/s', runs: runsOf('raw1x4.rowsPerSecond') },
    {
      figure: 'Raw INSERT, 1 row/txn, 4 conn, synchronous_commit off',
      unit: 'rows/s',
      runs: runsOf('raw1x4Relaxed.rowsPerSecond'),
      ratio: { runs: ratioRuns('raw1x4Relaxed.rowsPerSecond', 'raw1x4.rowsPerSecond'), of: 'raw 1-row @4 (flushed)' },
    },
    { figure: 'Raw INSERT, 1 row/txn, 16 conn', unit: 'rows/s', runs: runsOf('raw1x16.rowsPerSecond') },
    { figure: 'Raw INSERT, 100 rows/txn, 4 conn', unit: 'rows/s', runs: runsOf('raw100x4.rowsPerSecond') },
    {
      figure: 'HTTP client ceiling (trivial server), 16 conn',
      unit: 'req/s',
      runs: runsOf('ceiling16.requestsPerSecond'),
      ratio: { runs: ratioRuns('ceiling16.requestsPerSecond', 'minimal16.requestsPerSecond'), of: 'minimal service @16 (headroom)' },
      ...none('ceiling16'),
    },
    {
      figure: 'Minimal service, 1-event POSTs, 16 clients',
      unit: 'events/s',
      runs: runsOf('minimal16.eventsPerSecond'),
      ratio: { runs: ratioRuns('minimal16.eventsPerSecond', 'raw1x16.rowsPerSecond'), of: 'raw 1-row @16' },
      ...none('minimal16'),
    },
    { figure: 'Minimal service, 16 clients, p99', unit: 'ms', runs: runsOf('minimal16.p99') },
    { figure: 'Minimal service, 16 clients, CPU (service + PG)', unit: 'ms/event', runs: runsOf('minimal16.totalCpu') },
    { figure: 'Minimal service, 16 clients, service CPU', unit: 'ms/event', runs: runsOf('minimal16.serviceCpu') },
    {
      figure: 'Minimal service over /v1/ingest, 1-event messages, 16 connections',
      unit: 'events/s',
      runs: runsOf('minimalSocket1x16.eventsPerSecond'),
      ratio: { runs: ratioRuns('minimalSocket1x16.eventsPerSecond', 'raw1x16.rowsPerSecond'), of: 'raw 1-row @16' },
      ...none('minimalSocket1x16'),
    },
    { figure: 'Minimal service over /v1/ingest @16, CPU (service + PG)', unit: 'ms/event', runs: runsOf('minimalSocket1x16.totalCpu') },
    { figure: 'Minimal service over /v1/ingest @16, service CPU', unit: 'ms/event', runs: runsOf('minimalSocket1x16.serviceCpu') },
    {
      figure: 'Minimal service over /v1/ingest, 100-event messages, 4 connections',
      unit: 'events/s',
      runs: runsOf('minimalSocket100x4.eventsPerSecond'),
      ratio: { runs: ratioRuns('minimalSocket100x4.eventsPerSecond', 'raw100x4.rowsPerSecond'), of: 'raw 100-row txn @4' },
      ...none('minimalSocket100x4'),
    },
    { figure: 'Minimal service over /v1/ingest @4 × 100, CPU (service + PG)', unit: 'ms/event', runs: runsOf('minimalSocket100x4.totalCpu') },
    { figure: 'Chronicle 1-event POSTs, 1 client, p50', unit: 'ms', runs: runsOf('chronicle1x1.p50'), ...none('chronicle1x1') },
    { figure: 'Chronicle 1-event POSTs, 1 client', unit: 'events/s', runs: runsOf('chronicle1x1.eventsPerSecond') },
    {
      figure: 'Chronicle 1-event POSTs, 4 clients',
      unit: 'events/s',
      runs: runsOf('chronicle1x4.eventsPerSecond'),
      ratio: { runs: ratioRuns('chronicle1x4.eventsPerSecond', 'raw1x4.rowsPerSecond'), of: 'raw 1-row @4' },
      target: { text: '≥ 0.4× raw @4', pass: ratioAtLeast(0.4) },
      ...none('chronicle1x4'),
    },
    { figure: 'Chronicle 1-event POSTs, 4 clients, p50', unit: 'ms', runs: runsOf('chronicle1x4.p50') },
    { figure: 'Chronicle 1-event POSTs, 4 clients, p99', unit: 'ms', runs: runsOf('chronicle1x4.p99') },
    {
      figure: 'Chronicle 1-event POSTs, 16 clients',
      unit: 'events/s',
      runs: runsOf('chronicle1x16.eventsPerSecond'),
      ratio: { runs: ratioRuns('chronicle1x16.eventsPerSecond', 'raw1x16.rowsPerSecond'), of: 'raw 1-row @16' },
      target: { text: '≥ 0.5× raw @16', pass: ratioAtLeast(0.5) },
      ...none('chronicle1x16'),
    },
    {
      figure: 'Chronicle 1-event POSTs, 16 clients',
      unit: 'events/s',
      runs: runsOf('chronicle1x16.eventsPerSecond'),
      ratio: { runs: ratioRuns('chronicle1x16.eventsPerSecond', 'minimal16.eventsPerSecond'), of: 'minimal service @16' },
      target: { text: '≥ 1.0× minimal', pass: ratioAtLeast(1.0) },
    },
    { figure: 'Chronicle 1-event POSTs, 16 clients, p50', unit: 'ms', runs: runsOf('chronicle1x16.p50') },
    {
      figure: 'Chronicle 1-event POSTs, 16 clients, p99',
      unit: 'ms',
      runs: runsOf('chronicle1x16.p99'),
      target: { text: '≤ 20 ms', pass: (v) => v <= 20 },
    },
    {
      figure: 'Chronicle 100-event POSTs, 4 clients',
      unit: 'events/s',
      runs: runsOf('chronicle100x4.eventsPerSecond'),
      ratio: { runs: ratioRuns('chronicle100x4.eventsPerSecond', 'raw100x4.rowsPerSecond'), of: 'raw 100-row txn @4' },
      target: { text: '≥ 0.6× raw 100-row', pass: ratioAtLeast(0.6) },
      ...none('chronicle100x4'),
    },
    {
      figure: 'Chronicle 100-event POSTs, 4 clients',
      unit: 'events/s',
      runs: runsOf('chronicle100x4.eventsPerSecond'),
      target: { text: '≥ 38,000 events/s', pass: atLeast(38_000) },
    },
    {
      figure: 'WebSocket 1-event messages, 4 connections',
      unit: 'events/s',
      runs: runsOf('socket1x4.eventsPerSecond'),
      ratio: { runs: ratioRuns('socket1x4.eventsPerSecond', 'raw1x4.rowsPerSecond'), of: 'raw 1-row @4' },
      target: { text: '≥ 0.6× raw @4', pass: ratioAtLeast(0.6) },
      ...none('socket1x4'),
    },
    {
      figure: 'WebSocket 1-event messages, 16 connections',
      unit: 'events/s',
      runs: runsOf('socket1x16.eventsPerSecond'),
      ratio: { runs: ratioRuns('socket1x16.eventsPerSecond', 'raw1x16.rowsPerSecond'), of: 'raw 1-row @16' },
      target: { text: '≥ 1.0× raw @16', pass: ratioAtLeast(1.0) },
      ...none('socket1x16'),
    },
    {
      figure: 'WebSocket 1-event messages, 16 connections',
      unit: 'events/s',
      runs: runsOf('socket1x16.eventsPerSecond'),
      ratio: { runs: ratioRuns('socket1x16.eventsPerSecond', 'chronicle1x16.eventsPerSecond'), of: 'HTTP 1-event POSTs @16' },
    },
    {
      figure: 'WebSocket 1-event messages, 16 connections',
      unit: 'events/s',
      runs: runsOf('socket1x16.eventsPerSecond'),
      ratio: { runs: ratioRuns('socket1x16.eventsPerSecond', 'minimalSocket1x16.eventsPerSecond'), of: 'minimal service over /v1/ingest @16' },
    },
    { figure: 'WebSocket 1-event messages, 16 connections, p99', unit: 'ms', runs: runsOf('socket1x16.p99'), target: { text: '≤ 10 ms', pass: (v) => v <= 10 } },
    { figure: 'WebSocket @16, service CPU', unit: 'ms/event', runs: runsOf('socket1x16.serviceCpu') },
    { figure: 'WebSocket @16, CPU total (service + PG)', unit: 'ms/event', runs: runsOf('socket1x16.totalCpu') },
    {
      figure: 'WebSocket 100-event messages, 4 connections',
      unit: 'events/s',
      runs: runsOf('socket100x4.eventsPerSecond'),
      ratio: { runs: ratioRuns('socket100x4.eventsPerSecond', 'raw100x4.rowsPerSecond'), of: 'raw 100-row txn @4' },
      target: { text: '≥ 0.6× raw 100-row', pass: ratioAtLeast(0.6) },
      ...none('socket100x4'),
    },
    {
      figure: 'WebSocket 100-event messages, 4 connections',
      unit: 'events/s',
      runs: runsOf('socket100x4.eventsPerSecond'),
      ratio: { runs: ratioRuns('socket100x4.eventsPerSecond', 'minimalSocket100x4.eventsPerSecond'), of: 'minimal service over /v1/ingest, 100-event' },
    },
    {
      figure: 'WebSocket 1-event messages, 16 connections, 8 unanswered each',
      unit: 'events/s',
      runs: runsOf('socketPipelined1x16.eventsPerSecond'),
      ratio: { runs: ratioRuns('socketPipelined1x16.eventsPerSecond', 'raw1x16.rowsPerSecond'), of: 'raw 1-row @16' },
      ...none('socketPipelined1x16'),
    },
    {
      figure: 'WebSocket relaxed tokens, 4 connections',
      unit: 'events/s',
      runs: runsOf('socketRelaxed1x4.eventsPerSecond'),
      ratio: { runs: ratioRuns('socketRelaxed1x4.eventsPerSecond', 'socket1x4.eventsPerSecond'), of: 'durable ones @4' },
      target: { text: '≥ 1.5× durable', pass: ratioAtLeast(1.5) },
      ...none('socketRelaxed1x4'),
    },
    // Where the relaxed tier's gain is bounded: the flush it skips against the round trip of a message.
    { figure: 'WebSocket 1-event messages, 4 connections, p50', unit: 'ms', runs: runsOf('socket1x4.p50') },
    { figure: 'WebSocket relaxed tokens, 4 connections, p50', unit: 'ms', runs: runsOf('socketRelaxed1x4.p50') },
    {
      figure: 'Emmett 0.42, 1-event POSTs, 16 clients',
      unit: 'events/s',
      runs: runsOf('emmett1x16.eventsPerSecond'),
      ratio: { runs: ratioRuns('emmett1x16.eventsPerSecond', 'raw1x16.rowsPerSecond'), of: 'raw 1-row @16' },
      ...none('emmett1x16'),
    },
    { figure: 'Emmett 0.42 @16, service CPU', unit: 'ms/event', runs: runsOf('emmett1x16.serviceCpu') },
    { figure: 'Emmett 0.42 @16, CPU total (service + PG)', unit: 'ms/event', runs: runsOf('emmett1x16.totalCpu') },
    {
      figure: 'Emmett 0.42, 100-event POSTs, 4 clients',
      unit: 'events/s',
      runs: runsOf('emmett100x4.eventsPerSecond'),
      ratio: { runs: ratioRuns('emmett100x4.eventsPerSecond', 'raw100x4.rowsPerSecond'), of: 'raw 100-row txn @4' },
      ...none('emmett100x4'),
    },
    {
      figure: 'Chronicle 1-event POSTs, 16 clients',
      unit: 'events/s',
      runs: runsOf('chronicle1x16.eventsPerSecond'),
      ratio: { runs: ratioRuns('chronicle1x16.eventsPerSecond', 'emmett1x16.eventsPerSecond'), of: 'Emmett @16' },
      target: { text: '≥ 2× Emmett', pass: ratioAtLeast(2) },
    },
    {
      figure: 'Chronicle 100-event POSTs, 4 clients',
      unit: 'events/s',
      runs: runsOf('chronicle100x4.eventsPerSecond'),
      ratio: { runs: ratioRuns('chronicle100x4.eventsPerSecond', 'emmett100x4.eventsPerSecond'), of: 'Emmett 100-event @4' },
      target: { text: '≥ 1.2× Emmett', pass: ratioAtLeast(1.2) },
    },
    { figure: 'Raw INSERT 1 row @16, PostgreSQL CPU', unit: 'ms/row', runs: runsOf('raw1x16.pgCpu') },
    { figure: 'Raw INSERT 100 rows/txn @4, PostgreSQL CPU', unit: 'ms/row', runs: runsOf('raw100x4.pgCpu') },
    {
      figure: 'WebSocket 100-event messages @4, PostgreSQL CPU',
      unit: 'ms/event',
      runs: runsOf('socket100x4.pgCpu'),
      ratio: { runs: ratioRuns('socket100x4.pgCpu', 'raw100x4.pgCpu'), of: 'raw 100-row txn PG CPU/row' },
    },
    { figure: 'WebSocket 100-event messages @4, service CPU', unit: 'ms/event', runs: runsOf('socket100x4.serviceCpu') },
    {
      figure: 'Chronicle @16, service CPU',
      unit: 'ms/event',
      runs: runsOf('chronicle1x16.serviceCpu'),
      ratio: { runs: ratioRuns('chronicle1x16.serviceCpu', 'minimal16.serviceCpu'), of: "minimal service's CPU" },
    },
    { figure: 'Chronicle @16, session_index projector share of service CPU', unit: '%', runs: runsOf('chronicle1x16.projectorShare') },
    {
      figure: 'Chronicle @16, PostgreSQL CPU',
      unit: 'ms/event',
      runs: runsOf('chronicle1x16.pgCpu'),
      ratio: { runs: ratioRuns('chronicle1x16.pgCpu', 'raw1x16.pgCpu'), of: 'raw INSERT PG CPU/row' },
    },
    {
      figure: 'Chronicle @16, CPU total (service + PG)',
      unit: 'ms/event',
      runs: runsOf('chronicle1x16.totalCpu'),
      ratio: { runs: ratioRuns('chronicle1x16.totalCpu', 'raw1x16.pgCpu'), of: 'raw INSERT PG CPU/row' },
      target: { text: '≤ 0.5 ms/event', pass: (v) => v <= 0.5 },
    },
    {
      figure: 'Append p50, 10,000-msg ÷ 100-msg session',
      unit: 'ratio',
      runs: runsOf('append.p50Ratio'),
      target: { text: '≤ 1.2', pass: (v) => v <= 1.2 },
    },
    { figure: 'Append p50, 100-msg session', unit: 'ms', runs: runsOf('append.shortP50Ms') },
    ...WRITE_PATH_WRITERS.flatMap((writers): ResultRow[] => [
      { figure: `Write path without HTTP, ${writers} writer${writers === 1 ? '' : 's'}`, unit: 'events/s', runs: runsOf(`writePath${writers}.eventsPerSecond`) },
      { figure: `Write path without HTTP, ${writers}, events per commit`, unit: 'events', runs: runsOf(`writePath${writers}.eventsPerCommit`) },
      { figure: `Write path without HTTP, ${writers}, Node CPU`, unit: 'ms/event', runs: runsOf(`writePath${writers}.nodeCpu`) },
      { figure: `Write path without HTTP, ${writers}, PostgreSQL CPU`, unit: 'ms/event', runs: runsOf(`writePath${writers}.pgCpu`) },
    ]),
    {
      figure: 'Fold (projectSession, 100k events)',
      unit: 'events/s',
      runs: runsOf('fold.eventsPerSecond'),
      target: { text: '≥ 1,000,000 events/s', pass: atLeast(1_000_000) },
    },
    { figure: 'Merge 10k+10k', unit: 'ms', runs: runsOf('merge.ms'), target: { text: '≤ 15 ms', pass: (v) => v <= 15 } },
    {
      figure: 'Whole-store audit, 1,000 sessions × 200 events, encryption on',
      unit: 'events/s',
      runs: runsOf('auditSealed.eventsPerSecond'),
      ratio: { runs: ratioRuns('auditSealed.eventsPerSecond', 'auditPlain.eventsPerSecond'), of: 'the same sessions stored plain' },
      target: { text: 'whole-store audit, encryption on / off ≥ 0.9', pass: ratioAtLeast(0.9) },
      checks: `the 1,000 × 200 shape only (not the 100 × 10,000); mismatches ${countsOf('auditSealed.mismatches')}; ${encryptionStores.auditSealed}`,
    },
    {
      figure: 'Whole-store audit, 1,000 sessions × 200 events, encryption off (its twin)',
      unit: 'events/s',
      runs: runsOf('auditPlain.eventsPerSecond'),
      checks: `mismatches ${countsOf('auditPlain.mismatches')}; ${encryptionStores.auditPlain}`,
    },
    {
      figure: 'Whole-store audit, 1,000 × 200, encryption on, per audit CPU second',
      unit: 'events/s',
      runs: runsOf('auditSealed.eventsPerCpuSecond'),
      ratio: { runs: ratioRuns('auditSealed.eventsPerCpuSecond', 'auditPlain.eventsPerCpuSecond'), of: "the plain twin's" },
    },
    ...(['auditSmall', 'auditLong'] as const).flatMap((id): ResultRow[] => {
      const shape = id === 'auditSmall' ? '1,000 sessions × 200 events' : '100 sessions × 10,000 events';
      return [
        { figure: `Whole-store audit, ${shape}`, unit: 'events/s', runs: runsOf(`${id}.eventsPerSecond`), target: { text: '≥ 100,000 events/s', pass: atLeast(100_000) } },
        { figure: `Whole-store audit, ${shape}, peak RSS`, unit: 'MB', runs: runsOf(`${id}.peakRssMb`), target: { text: '≤ 200 MB', pass: (v) => v <= 200 } },
        { figure: `Whole-store audit, ${shape}, mismatches`, unit: 'count', runs: runsOf(`${id}.mismatches`), target: { text: '0', pass: (v) => v === 0 } },
      ];
    }),
    {
      figure: 'Chronicle 1-event POSTs, 16 clients, continuous auditor on',
      unit: 'events/s',
      runs: runsOf('chronicle1x16audited.eventsPerSecond'),
      ratio: { runs: auditorPairRatios, of: `its twin, auditor off (median of ${auditorPairRatios.length} back-to-back pairs)` },
      target: { text: '≥ 0.95× auditor off', pass: ratioAtLeast(0.95) },
      ...none('chronicle1x16audited'),
    },
    {
      figure: 'Chronicle 1-event POSTs, 16 clients, the twin with the auditor off',
      unit: 'events/s',
      runs: runsOf('chronicle1x16unaudited.eventsPerSecond'),
      ...none('chronicle1x16unaudited'),
    },
    {
      figure: 'Chronicle 1-event POSTs, 16 clients, continuous auditor share of service CPU',
      unit: '%',
      runs: runsOf('chronicle1x16audited.auditorShare'),
    },
    ...ENCRYPTION_SHAPES.flatMap(([shape, clients, events]): ResultRow[] => {
      const what = `Chronicle ${events}-event POSTs, ${clients} clients`;
      return [
        {
          figure: `${what}, encryption on (twin services)`,
          unit: 'events/s',
          runs: runsOf(`sealed${shape}.eventsPerSecond`),
          ratio: { runs: ratioRuns(`sealed${shape}.eventsPerSecond`, `plain${shape}.eventsPerSecond`), of: 'its twin, encryption off' },
          target: { text: `encryption on / off, ${events}-event @${clients} ≥ 0.9`, pass: ratioAtLeast(0.9) },
          checks: [checkText(`sealed${shape}`), encryptionStores.ingestSealed].filter(Boolean).join('; '),
        },
        {
          figure: `${what}, the twin with CHRONICLE_ENCRYPTION=off`,
          unit: 'events/s',
          runs: runsOf(`plain${shape}.eventsPerSecond`),
          checks: [checkText(`plain${shape}`), encryptionStores.ingestPlain].filter(Boolean).join('; '),
        },
        {
          figure: `${what}, encryption on, service CPU`,
          unit: 'ms/event',
          runs: runsOf(`sealed${shape}.serviceCpu`),
          ratio: { runs: ratioRuns(`sealed${shape}.serviceCpu`, `plain${shape}.serviceCpu`), of: "the twin's, encryption off" },
        },
      ];
    }),
    { figure: 'import-hermes, 500 sessions (8 rows, state.db, 40-event journal each)', unit: 'sessions/s', runs: runsOf('import.sessionsPerSecond') },
    { figure: 'import-hermes, events appended', unit: 'events/s', runs: runsOf('import.eventsPerSecond') },
    { figure: 'import-hermes re-run (appends nothing)', unit: 's', runs: runsOf('import.rerunSeconds') },
    { figure: 'Display view after a token, 100-msg session', unit: 'ms', runs: runsOf('view.shortMs') },
    {
      figure: 'Display view after a token, 10,000-msg session',
      unit: 'ms',
      runs: runsOf('view.longMs'),
      target: { text: '≤ 5 ms', pass: (v) => v <= 5 },
    },
    {
      figure: 'Display view after a token, 10,000 ÷ 100 msgs',
      unit: 'ratio',
      runs: runsOf('view.ratio'),
      target: { text: '≤ 2', pass: (v) => v <= 2 },
    },
    { figure: 'Full render + hash, 10,000-msg session (reference)', unit: 'ms', runs: runsOf('view.fullRenderMs') },
    { figure: 'Live patch for one token (larger session)', unit: 'bytes', runs: runsOf('view.patchBytes'), target: { text: '≤ 2,048 bytes', pass: (v) => v <= 2048 } },
    {
      figure: 'Streaming output after a token, 10,000-token pending turn',
      unit: 'ms',
      runs: runsOf('view.turnStreamingMs'),
      target: { text: '≤ 0.1 ms', pass: (v) => v <= 0.1 },
      checks: 'what every live patch of the version carries, produced once per version from the turn\'s kept fold',
    },
    { figure: 'Streaming output, a pass over the whole 10,000-token turn (reference: a cold cache)', unit: 'ms', runs: runsOf('view.turnWholePassMs') },
    {
      figure: 'Live patch for one token, 10,000-token turn, compact=1',
      unit: 'bytes',
      runs: runsOf('view.turnDeltaPatchBytes'),
      target: { text: '≤ 2,048 bytes', pass: (v) => v <= 2048 },
    },
    { figure: 'Live patch for one token, 10,000-token turn, streaming whole (reference)', unit: 'bytes', runs: runsOf('view.turnWholePatchBytes') },
    {
      figure: `Before the reads: time until the machine was quiet (≤ ${READS_QUIET_PERCENT} % busy over 1 s, at most ${READS_QUIET_MAX_MS / 1000} s)`,
      unit: 's',
      runs: runsOf('readsQuiet.waitSeconds'),
    },
    { figure: 'Before the reads: the machine\'s busy share over the last second', unit: '%', runs: runsOf('readsQuiet.busyPercent') },
    {
      figure: 'HTTP ceiling, answers of the read\'s size (trivial server), 64 conn',
      unit: 'req/s',
      runs: runsOf('readCeiling64.requestsPerSecond'),
      ...none('readCeiling64'),
    },
    { figure: 'HTTP ceiling, answers of the read\'s size, 64 conn, p99', unit: 'ms', runs: runsOf('readCeiling64.p99') },
    {
      figure: 'Cached 1,000-msg transcript reads, 64 clients',
      unit: 'reads/s',
      runs: runsOf('read64.requestsPerSecond'),
      ratio: { runs: ratioRuns('read64.requestsPerSecond', 'readCeiling64.requestsPerSecond'), of: 'HTTP ceiling, same size' },
      target: { text: '≥ 2,000 reads/s', pass: atLeast(2000) },
      ...none('read64'),
    },
    { figure: 'Cached transcript reads, 64 clients, p99', unit: 'ms', runs: runsOf('read64.p99'), target: { text: '≤ 50 ms', pass: (v) => v <= 50 } },
    { figure: 'Cached transcript reads, service CPU', unit: 'ms/read', runs: runsOf('read64.serviceCpu') },
    {
      figure: 'If-None-Match → 304, 64 clients',
      unit: 'answers/s',
      runs: runsOf('notModified64.requestsPerSecond'),
      target: { text: '≥ 6,000/s', pass: atLeast(6000) },
      ...none('notModified64'),
    },
    {
      figure: 'Dashboard: open a 10,000-message session (Chromium)',
      unit: 'ms',
      runs: runsOf('dashboard.openMs'),
      target: { text: '≤ 1,000 ms', pass: (v) => v <= 1000 },
    },
    { figure: 'Dashboard: rows in the DOM, 10,000-message session', unit: 'rows', runs: runsOf('dashboard.rows'), target: { text: '< 60', pass: (v) => v < 60 } },
    {
      figure: 'Service RSS after 1,000 sessions × 200 events',
      unit: 'MB',
      runs: runsOf('memory.rssAfter'),
      target: { text: '≤ 250 MB', pass: (v) => v <= 250 },
    },
    {
      figure: 'Service RSS after the ingest rounds (sessions deep in pending turns)',
      unit: 'MB',
      runs: runsOf('memory.afterIngest'),
      target: { text: '≤ 300 MB', pass: (v) => v <= 300 },
    },
    { figure: 'Service RSS with 1,000 idle /v1/ingest sockets', unit: 'MB', runs: runsOf('memory.idleSockets'), target: { text: '≤ 300 MB', pass: (v) => v <= 300 } },
    {
      figure: 'Service RSS peak during the bench',
      unit: 'MB',
      runs: runsOf('memory.peak'),
      target: { text: '≤ 400 MB', pass: (v) => v <= 400 },
      ...(peakWatch.recorded === '' ? {} : { checks: `reached during "${peakWatch.recorded}" (VmHWM read after every phase)` }),
    },
    ...(['express', 'fastify'] as const).flatMap((adapter): ResultRow[] => [
      { figure: `Nest ${adapter} adapter (http-adapters.bench)`, unit: 'req/s', runs: runsOf(`${adapter}.rps`), checks: adapterNote },
      { figure: `Nest ${adapter} adapter, p50`, unit: 'ms', runs: runsOf(`${adapter}.p50`) },
      { figure: `Nest ${adapter} adapter, p99`, unit: 'ms', runs: runsOf(`${adapter}.p99`) },
      {
        figure: `Nest ${adapter} adapter, server thread CPU (no guard, hook or database)`,
        unit: 'ms/request',
        runs: runsOf(`${adapter}.cpu`),
        // Against the minimal service's whole process per event (its pg client and INSERT included): the floor a
        // Nest service pays on its one thread before any work of its own.
        ratio: { runs: ratioRuns(`${adapter}.cpu`, 'minimal16.serviceCpu'), of: "minimal service's CPU" },
      },
    ]),
  ];
}

const METHOD = `
Method: every figure is the median of the runs listed (rounds interleaved: round 1 of every load phase, then
round 2, …); a ratio is the median of the per-round ratios (figure ÷ baseline of the same round), so it can
differ slightly from the ratio of the two medians. Load figures count the 2xx answers (or committed rows) of
requests that started and completed inside the measured window, after a warm-up; every answer is checked,
and non-2xx answers or socket errors are listed under Checks, never hidden. Latencies are client-observed
(write of the request to the last byte of the answer), from a log histogram with 1 % buckets.
CPU per event: utime+stime from /proc/<pid>/stat (all threads) of the service process and of every process of
the bench PostgreSQL cluster (postmaster, its live children, and the postmaster's cutime/cstime for children
that exited), from the window's start to ${SETTLE_MS} ms after its end (so deferred work — snapshots, the
projector — is included), divided by the events acknowledged in the window. The load client runs in the
bench's main process and is never in these figures, but it competes for the same cores.
Raw baselines: pg directly on a table shaped like Chronicle's events, one stream per connection, named
prepared statements; 100 rows/txn is one INSERT … SELECT FROM unnest(…) per transaction.
The Citus rows (bench/citus.bench.ts): a coordinator and 2 workers of their own (PostgreSQL 15 with Citus, on
disk, with this cluster's durability settings, read back from every node), Chronicle's migrations through the
coordinator, two replicas each connected to one worker, and a baseline Chronicle on a database of its own on this
cluster, started after the other load rounds and the memory phase (its replicas' background must not run beside
them) and after the one-server services are stopped (theirs must not run beside it); every service warmed up
first (3 s of each shape on each side, not measured: a fresh process's first load), then every round both shapes
on both, each pair back to back (ABBA, then BAAB). The
clients are split evenly over the replicas and their sessions over the workers (ids picked by their shard's
placement), so half of each replica's appends go through the worker that does not hold the session. CPU per
event as above, for each node's PostgreSQL processes and each replica: the coordinator's per event of all, a
worker's per event of the sessions it holds (its share from what its clients sent in the window); the section's
CPU windows run on after the load until its processes are back to their quiet rate (15 s at most), so the
projectors' catch-up is charged to the events that caused it and does not slow the phase after. The capacity
model after the results is derived from those figures and states its assumptions.
The in-process figures (append, fold, merge) come from bench/append.bench.ts and bench/fold.bench.ts (each
run itself a median of its repetitions); append runs on a fresh database of the same durable cluster, and
each fold round in a fresh Node process (as \`npm run bench:fold\` runs it), not in this one's grown heap.
`.trim();

async function main(): Promise<void> {
  const loadAtStart = os.loadavg();
  const jiffiesAtStart = machineJiffies();
  progress(`${RUNS} runs × ${SECONDS} s per load figure (warm-up ${WARMUP_MS} ms)`);
  workDir = mkdtempSync(join(os.tmpdir(), 'chronicle-bench-'));
  cluster = await startBenchCluster();
  const settings = await cluster.settings();
  progress(`PostgreSQL ${settings.server_version} on 127.0.0.1:${cluster.port} (fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit})`);

  const rawUrl = await cluster.createDatabase('bench_raw');
  await createEventsTable(rawUrl);
  const minimalUrl = await cluster.createDatabase('bench_minimal');
  await createEventsTable(minimalUrl);
  const chronicleUrl = await cluster.createDatabase('chronicle');

  const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
  const trivialPort = await freePort();
  const trivial = startServiceProcess('trivial-server', here('./trivial-server.js'), { PORT: String(trivialPort) });
  const minimalPort = await freePort();
  const minimal = startServiceProcess('minimal-service', here('./minimal-service.js'), { PORT: String(minimalPort), DATABASE_URL: minimalUrl });
  await waitForHttp(trivial, trivialPort, '/health');
  await waitForHttp(minimal, minimalPort, '/health');
  // Emmett 0.42 behind node:http with the journal route's shape and answer (issue 29's peer): its own tables,
  // created by its migration before it answers /health, on a database of its own.
  let emmett: EmmettPeer | undefined;
  await step('start the Emmett peer', async () => {
    emmett = await startEmmettPeer(await cluster!.createDatabase('emmett'), progress);
  });
  let chronicle: Awaited<ReturnType<typeof startChronicle>> | undefined;
  await step('start Chronicle', async () => {
    chronicle = await startChronicle(chronicleUrl, workDir!);
    peakWatch.pid = chronicle.service.pid;
    progress(`Chronicle ready on 127.0.0.1:${chronicle.port} (pid ${chronicle.service.pid})`);
  });
  // The continuous auditor's cost: two more services, each on a database of its own with only these phases'
  // sessions, one with the auditor on (every second, its default bounds per pass) and its twin with it off;
  // their 16-client ingests run back to back every round, twice each in ABBA order, so both see the same history
  // and the same neighbours (the main service's 100-event phase leaves deferred work behind it).
  let audited: Awaited<ReturnType<typeof startChronicle>> | undefined;
  let unaudited: Awaited<ReturnType<typeof startChronicle>> | undefined;
  await step('start Chronicle with the continuous auditor, and its twin without', async () => {
    audited = await startChronicle(await cluster!.createDatabase('chronicle_audited'), join(workDir!, 'audited'), { CHRONICLE_AUDIT_INTERVAL_MS: '1000' });
    unaudited = await startChronicle(await cluster!.createDatabase('chronicle_unaudited'), join(workDir!, 'unaudited'));
  });
  // The cost of encryption (issue 30): two more services started as the main one, each on a database of its own
  // with only these phases' sessions, one sealing content (the default) and its twin with CHRONICLE_ENCRYPTION=off;
  // their ingests run back to back every round, ABBA, so both see the same history and the same neighbours.
  let sealed: Awaited<ReturnType<typeof startChronicle>> | undefined;
  let plain: Awaited<ReturnType<typeof startChronicle>> | undefined;
  const sealedUrl = await cluster.createDatabase('chronicle_sealed');
  const plainUrl = await cluster.createDatabase('chronicle_plain');
  await step('start Chronicle sealing content, and its twin with CHRONICLE_ENCRYPTION=off', async () => {
    sealed = await startChronicle(sealedUrl, join(workDir!, 'sealed'));
    plain = await startChronicle(plainUrl, join(workDir!, 'plain'), { CHRONICLE_ENCRYPTION: 'off' });
  });
  let readTarget: ReadTarget | undefined;
  await step('prepare the read session', async () => {
    if (!chronicle) return;
    readTarget = await prepareReadSession(chronicle.port, 'read-1000', 1000);
    progress(`  read session: 1,000 messages, ${readTarget.bytes.toLocaleString('en-US')} bytes per answer`);
  });

  for (let round = 0; round < RUNS; round += 1) {
    progress(`round ${round + 1}/${RUNS}`);
    for (const [id, connections, rowsPerTransaction, relaxed] of [
      ['raw1x4', 4, 1, false],
      // The relaxed tier's ceiling on this storage: the same INSERTs, each commit answered before its flush.
      ['raw1x4Relaxed', 4, 1, true],
      ['raw1x16', 16, 1, false],
      ['raw100x4', 4, 100, false],
    ] as const) {
      await step(`${id} round ${round + 1}`, async () => {
        const pgCpu = (): number => clusterCpuMs(cluster!.postmasterPid());
        let before = Number.NaN;
        const result = await runRawInsert({
          url: rawUrl,
          connections,
          rowsPerTransaction,
          durationMs: DURATION_MS,
          warmupMs: WARMUP_MS,
          streamPrefix: `${id}-r${round}`,
          ...(relaxed ? { synchronousCommit: 'off' as const } : {}),
          onWindowStart: () => (before = pgCpu()),
        });
        record(`${id}.rowsPerSecond`, round, result.rowsPerSecond);
        if (id === 'raw1x16' || id === 'raw100x4') {
          await sleep(SETTLE_MS);
          record(`${id}.pgCpu`, round, (pgCpu() - before) / result.rows);
        }
        progress(`  ${id}: ${Math.round(result.rowsPerSecond)} rows/s, p50 ${result.p50Ms.toFixed(2)} ms per txn`);
      });
    }
    await step(`ceiling round ${round + 1}`, () =>
      httpPhase(round, { id: 'ceiling16', port: trivialPort, connections: 16, eventsPerRequest: 1, clients: plainClients(`ceil-r${round}`, 16) }),
    );
    await step(`minimal round ${round + 1}`, () =>
      httpPhase(round, {
        id: 'minimal16',
        port: minimalPort,
        connections: 16,
        eventsPerRequest: 1,
        clients: plainClients(`min-r${round}`, 16),
        cpuOf: minimal,
      }),
    );
    // The same minimal service over the socket: the ceiling of Chronicle's socket shapes on this machine.
    for (const [id, connections, eventsPerRequest] of [
      ['minimalSocket1x16', 16, 1],
      ['minimalSocket100x4', 4, 100],
    ] as const) {
      await step(`${id} round ${round + 1}`, () =>
        httpPhase(round, {
          id,
          port: minimalPort,
          connections,
          eventsPerRequest,
          clients: plainClients(`${id}-r${round}`, connections),
          socket: { inFlight: 1 },
          cpuOf: minimal,
        }),
      );
    }
    if (!chronicle) continue;
    const service = chronicle;
    for (const [id, connections, eventsPerRequest, cpu] of [
      ['chronicle1x1', 1, 1, false],
      ['chronicle1x4', 4, 1, false],
      ['chronicle1x16', 16, 1, true],
      ['chronicle100x4', 4, 100, false],
    ] as const) {
      await step(`${id} round ${round + 1}`, async () => {
        const clients = await prepareJournalClients(service.port, `r${round}-${id}`, connections);
        await httpPhase(round, { id, port: service.port, connections, eventsPerRequest, clients, ...(cpu ? { cpuOf: service.service, projectorOf: service.port } : {}) });
      });
    }
    // The same journal appends over /v1/ingest (issue 29): one message unanswered per connection, as the HTTP
    // client has one request per connection; and a worker that does not wait for each token's reply (8).
    for (const [id, connections, eventsPerRequest, inFlight, cpu] of [
      ['socket1x4', 4, 1, 1, false],
      // Back to back with its durable twin: the host's speed moves between phases minutes apart.
      ['socketRelaxed1x4', 4, 1, 1, false],
      ['socket1x16', 16, 1, 1, true],
      ['socket100x4', 4, 100, 1, true],
      ['socketPipelined1x16', 16, 1, 8, false],
    ] as const) {
      await step(`${id} round ${round + 1}`, async () => {
        const clients = await prepareJournalClients(service.port, `r${round}-${id}`, connections);
        const extra = id === 'socketRelaxed1x4' ? { durability: 'relaxed' } : undefined;
        await httpPhase(round, {
          id,
          port: service.port,
          connections,
          eventsPerRequest,
          clients,
          socket: { inFlight, ...(extra ? { extra } : {}) },
          ...(cpu ? { cpuOf: service.service } : {}),
        });
      });
    }
    for (const [id, connections, eventsPerRequest] of [
      ['emmett1x16', 16, 1],
      ['emmett100x4', 4, 100],
    ] as const) {
      const peer = emmett;
      if (!peer) break;
      await step(`${id} round ${round + 1}`, () =>
        httpPhase(round, { id, port: peer.port, connections, eventsPerRequest, clients: plainClients(`${id}-r${round}`, connections), cpuOf: peer.service }),
      );
    }
    if (audited && unaudited) {
      const twins = [
        ['chronicle1x16unaudited', unaudited],
        ['chronicle1x16audited', audited],
      ] as const;
      // ABBA BAAB in every round (BAAB ABBA the next): each twin runs four times, twice early and twice late
      // in its half, so neither gains from going first or last; the figure is the mean of its four runs. A
      // twin's single run varies by ±15 % on this machine, so fewer runs a round cannot resolve the 5 % the
      // target is about.
      const [a, b] = round % 2 === 0 ? twins : [twins[1], twins[0]];
      const rates = new Map<string, number[]>();
      /** Each slot's rate in run order: slots 2k and 2k+1 (one of each twin, back to back) form a pair. */
      const slots: { audited: boolean; rate: number }[] = [];
      // The auditor's own time against the audited twin's CPU over its four runs: its cost read off the service
      // itself, which the host's swings between runs do not move as they move the throughput ratio.
      const auditor = { busy: 0, cpu: 0 };
      for (const [slot, [id, service]] of [a, b, b, a, b, a, a, b].entries()) {
        await step(`${id} round ${round + 1} (${slot + 1}/8)`, async () => {
          const clients = await prepareJournalClients(service.port, `r${round}-${id}-${slot}`, 16);
          const before = { busy: await auditorBusyMs(service.port), cpu: processCpuMs(service.service.pid) };
          await httpPhase(round, { id, port: service.port, connections: 16, eventsPerRequest: 1, clients });
          if (service === audited) {
            auditor.busy += (await auditorBusyMs(service.port)) - before.busy;
            auditor.cpu += processCpuMs(service.service.pid) - before.cpu;
          }
          rates.set(id, [...(rates.get(id) ?? []), runsOf(`${id}.eventsPerSecond`)[round]!]);
          slots.push({ audited: service === audited, rate: runsOf(`${id}.eventsPerSecond`)[round]! });
        });
      }
      for (let k = 0; k + 1 < slots.length; k += 2) {
        const [on, off] = slots[k].audited ? [slots[k], slots[k + 1]] : [slots[k + 1], slots[k]];
        if (on.audited && !off.audited) auditorPairRatios.push(on.rate / off.rate);
      }
      for (const [id, values] of rates) record(`${id}.eventsPerSecond`, round, values.reduce((x, y) => x + y, 0) / values.length);
      record('chronicle1x16audited.auditorShare', round, (100 * auditor.busy) / auditor.cpu);
    }
    if (sealed && plain) {
      const twins = { sealed, plain };
      for (const [index, [shape, connections, eventsPerRequest]] of ENCRYPTION_SHAPES.entries()) {
        // ABBA in every shape, the first twin alternating by shape and by round: each twin runs twice, once
        // early and once late, the service's and PostgreSQL's CPU sampled (so the deferred work of a run settles
        // before the next); a twin's figure in a round is the mean of its two runs.
        const first = (round + index) % 2 === 0 ? 'sealed' : 'plain';
        const second = first === 'sealed' ? 'plain' : 'sealed';
        const values = new Map<string, number[]>();
        for (const [slot, which] of ([first, second, second, first] as const).entries()) {
          const id = `${which}${shape}`;
          const service = twins[which];
          await step(`${id} round ${round + 1} (${slot + 1}/4)`, async () => {
            const clients = await prepareJournalClients(service.port, `r${round}-${id}-${slot}`, connections);
            await httpPhase(round, { id, port: service.port, connections, eventsPerRequest, clients, cpuOf: service.service });
            for (const figure of ['eventsPerSecond', 'serviceCpu', 'totalCpu']) {
              const key = `${id}.${figure}`;
              values.set(key, [...(values.get(key) ?? []), runsOf(key)[round]!]);
            }
          });
        }
        for (const [key, list] of values) record(key, round, list.reduce((x, y) => x + y, 0) / list.length);
      }
    }
    const target = readTarget;
    if (!target) continue;
    const ceilingRead = encodeRequest({ method: 'GET', path: `/bytes/${target.bytes}`, headers: {} }, trivialPort);
    // The reads come after the twins' ingest rounds: their deferred work would share the cores with the reads
    // (and with the ceiling's trivial server), which touch no database. Both wait for it, and say how long.
    await step(`reads: quiet round ${round + 1}`, async () => {
      const { waitedMs, busyPercent } = await untilMachineQuiet(READS_QUIET_PERCENT, READS_QUIET_MAX_MS);
      record('readsQuiet.waitSeconds', round, waitedMs / 1000);
      record('readsQuiet.busyPercent', round, busyPercent);
      progress(`  quiet before the reads after ${(waitedMs / 1000).toFixed(1)} s (machine ${busyPercent.toFixed(1)} % busy over the last second)`);
    });
    await step(`readCeiling64 round ${round + 1}`, () =>
      httpPhase(round, { id: 'readCeiling64', port: trivialPort, connections: 64, eventsPerRequest: 1, clients: [], request: () => ceilingRead }),
    );
    for (const [id, revalidate] of [['read64', false], ['notModified64', true]] as const) {
      await step(`${id} round ${round + 1}`, () =>
        httpPhase(round, {
          id,
          port: service.port,
          connections: 64,
          eventsPerRequest: 1,
          clients: [],
          request: () => readRequest(target, service.port, revalidate),
          cpuOf: service.service,
          ...(revalidate ? { expectStatus: (status: number) => status === 304 } : {}),
        }),
      );
    }
  }
  await step('encryption twins: what their stores hold', async () => {
    for (const [key, url] of [['ingestSealed', sealedUrl], ['ingestPlain', plainUrl]] as const) {
      const { sealed: count, events } = await sealedShare(url);
      encryptionStores[key] = `twin's store: ${count.toLocaleString('en-US')} of ${events.toLocaleString('en-US')} events sealed`;
    }
  });
  if (chronicle) {
    const service = chronicle;
    // Issue 29's long turns: every round above left sessions tens of thousands of tokens deep in a pending turn
    // (the 1-event and 100-event loads, HTTP and socket); what the service holds after them, 3 s quiet.
    await step('memory after the ingest rounds', async () => {
      await sleep(3000);
      record('memory.afterIngest', 0, memoryOf(service.service.pid).rssMb);
      progress(`  service RSS after the ingest rounds ${runsOf('memory.afterIngest')[0]!.toFixed(0)} MB`);
    });
    await step('memory with 1,000 idle sockets', async () => {
      const sockets = await openIdleSockets(service.port, 1000);
      await sleep(3000);
      record('memory.idleSockets', 0, memoryOf(service.service.pid).rssMb);
      progress(`  service RSS with ${sockets.length} idle /v1/ingest sockets ${runsOf('memory.idleSockets')[0]!.toFixed(0)} MB`);
      for (const socket of sockets) socket.terminate();
    });
    await step('memory', async () => {
      progress('memory: ingesting 1,000 sessions × 200 events over HTTP');
      await ingestSessions(service.port, 'mem', 1000, 200);
      await sleep(3000);
      const { rssMb, peakMb } = memoryOf(service.service.pid);
      record('memory.rssAfter', 0, rssMb);
      record('memory.peak', 0, peakMb);
      // The row names the phase of the peak it records: this one, when the peak rose during it.
      peakWatch.recorded = peakMb > peakWatch.mb + 1 ? 'memory' : peakWatch.phase;
      progress(`  service RSS ${rssMb.toFixed(0)} MB after, peak ${peakMb.toFixed(0)} MB`);
    });
  }
  if (chronicle) {
    const service = chronicle;
    let seeded = false;
    for (let round = 0; round < RUNS; round += 1) {
      await step(`dashboard round ${round + 1}`, async () => {
        if (!seeded) {
          progress('dashboard: writing a 10,000-message session');
          await seedDashboardSession(service.port);
          seeded = true;
        }
        const result = await runDashboardBench(service.port);
        record('dashboard.openMs', round, result.openMs);
        record('dashboard.rows', round, result.rows);
        progress(`  dashboard: 10,000-message session open in ${result.openMs.toFixed(0)} ms (median of 5), ${result.rows} rows in the DOM`);
      });
    }
  }
  // The Citus section (issue 28, bench/citus.bench.ts): its own coordinator + 2 workers with two replicas, and a
  // baseline Chronicle on this cluster, each pair of its figures measured back to back. Started after the rounds
  // above: its replicas' background passes reach every node every second (bench/README.md says how much),
  // which must not run beside the one-server figures.
  // The one-server services are done by now: stopped first, so their background (each one's projector tick, the
  // audited one's continuous auditor) runs neither beside the Citus nodes nor on the baseline's PostgreSQL.
  progress('stopping the one-server services');
  await Promise.all([trivial.stop(), minimal.stop(), emmett?.service.stop(), chronicle?.service.stop(), audited?.service.stop(), unaudited?.service.stop(), sealed?.service.stop(), plain?.service.stop()]);
  const citusSkip = citusSkipped();
  if (citusSkip) progress(`Citus section skipped: ${citusSkip}`);
  else {
    await step('start the Citus section', async () => {
      citus = await startCitusSection({ single: cluster!, workDir: workDir!, samples, progress });
    });
  }
  for (let round = 0; citus && round < RUNS; round += 1) {
    progress(`Citus section, round ${round + 1}/${RUNS}`);
    await citus.round(round);
  }
  if (citus) {
    progress('stopping the Citus section');
    await citus.stop();
  }

  for (let round = 0; round < RUNS; round += 1) {
    await step(`append round ${round + 1}`, async () => {
      progress(`append bench ${round + 1}/${RUNS} (seeds a 10,000-message session)`);
      const url = await cluster!.createDatabase(`bench_append_${round}`);
      const result = await runAppendBench({ databaseUrl: url });
      record('append.p50Ratio', round, result.p50Ratio);
      record('append.shortP50Ms', round, result.shortP50Ms);
      progress(`  append: p50 ${result.shortP50Ms.toFixed(2)} ms vs ${result.longP50Ms.toFixed(2)} ms, ratio ${result.p50Ratio.toFixed(2)}`);
    });
  }
  for (let round = 0; round < RUNS; round += 1) {
    await step(`write path round ${round + 1}`, async () => {
      const url = await cluster!.createDatabase(`bench_write_path_${round}`);
      for (const writers of WRITE_PATH_WRITERS) {
        const result = await runWritePathBench({
          databaseUrl: url,
          writers,
          durationMs: DURATION_MS,
          warmupMs: WARMUP_MS,
          pgCpu: () => clusterCpuMs(cluster!.postmasterPid()),
        });
        record(`writePath${writers}.eventsPerSecond`, round, result.eventsPerSecond);
        record(`writePath${writers}.eventsPerCommit`, round, result.eventsPerCommit);
        record(`writePath${writers}.nodeCpu`, round, result.nodeCpuMsPerEvent);
        record(`writePath${writers}.pgCpu`, round, result.pgCpuMsPerEvent);
        progress(
          `  write path, ${writers} writers: ${Math.round(result.eventsPerSecond)} events/s, ${result.eventsPerCommit.toFixed(1)} per commit, Node ${result.nodeCpuMsPerEvent.toFixed(3)} + PG ${result.pgCpuMsPerEvent.toFixed(3)} ms/event`,
        );
      }
    });
  }
  // Seeded once (1,200,000 events, the longest step), then each shape audited RUNS times, each audit a fresh
  // child process on the same store: a figure per run, as the load figures have.
  await step('audit', async () => {
    progress(`audit bench (seeds 1,000 × 200 and 100 × 10,000 events, audits each ${RUNS} times in a child process)`);
    const url = await cluster!.createDatabase('bench_audit');
    const runs = new Map<string, number>();
    for (const figure of await runAuditBench(url, RUNS)) {
      const id = figure.sessions === 1000 ? 'auditSmall' : 'auditLong';
      const run = runs.get(id) ?? 0;
      runs.set(id, run + 1);
      record(`${id}.eventsPerSecond`, run, figure.eventsPerSecond);
      record(`${id}.peakRssMb`, run, figure.peakRssMb);
      record(`${id}.mismatches`, run, figure.mismatches);
      progress(`  audit ${figure.shape} (${run + 1}/${RUNS}): ${figure.eventsPerSecond} events/s, RSS ${figure.peakRssMb.toFixed(0)} MB, ${figure.mismatches} mismatches`);
    }
  });
  // The audit's cost of encryption (issue 30): the 1,000 × 200 shape seeded sealed and plain into two databases,
  // audited back to back RUNS times (the order alternating), each audit a fresh child process.
  await step('audit, encryption on and off', async () => {
    progress(`audit encryption bench (seeds 1,000 × 200 events sealed and plain, audits each ${RUNS} times, back to back)`);
    const result = await runAuditEncryptionBench(await cluster!.createDatabase('bench_audit_sealed'), await cluster!.createDatabase('bench_audit_plain'), RUNS, progress);
    for (const [which, id] of [['sealed', 'auditSealed'], ['plain', 'auditPlain']] as const) {
      for (const [run, figure] of result[which].entries()) {
        record(`${id}.eventsPerSecond`, run, figure.eventsPerSecond);
        record(`${id}.eventsPerCpuSecond`, run, figure.events / figure.cpuSeconds);
        record(`${id}.mismatches`, run, figure.mismatches);
        progress(`  audit ${which} (${run + 1}/${RUNS}): ${figure.eventsPerSecond} events/s, ${Math.round(figure.events / figure.cpuSeconds)} per CPU s, ${figure.mismatches} mismatches`);
      }
      const store = which === 'sealed' ? result.sealedStore : result.plainStore;
      encryptionStores[id] = `store: ${store.sealed.toLocaleString('en-US')} of ${store.events.toLocaleString('en-US')} events sealed`;
    }
  });
  for (let round = 0; round < RUNS; round += 1) {
    await step(`import round ${round + 1}`, async () => {
      progress(`import-hermes bench ${round + 1}/${RUNS} (500 sessions)`);
      const url = await cluster!.createDatabase(`bench_import_${round}`);
      await runMigrations(url);
      const result = await runImportBench(url, 500);
      record('import.sessionsPerSecond', round, result.sessionsPerSecond);
      record('import.eventsPerSecond', round, result.eventsPerSecond);
      record('import.rerunSeconds', round, result.rerunSeconds);
      progress(`  import: ${result.sessionsPerSecond.toFixed(0)} sessions/s, ${result.eventsPerSecond.toFixed(0)} events/s, re-run ${result.rerunSeconds.toFixed(2)} s`);
    });
  }
  for (let round = 0; round < RUNS; round += 1) {
    await step(`view round ${round + 1}`, async () => {
      const result = await runViewBench();
      record('view.shortMs', round, result.shortMs);
      record('view.longMs', round, result.longMs);
      record('view.ratio', round, result.ratio);
      record('view.patchBytes', round, result.patchBytes);
      record('view.fullRenderMs', round, result.fullRenderMs);
      record('view.turnStreamingMs', round, result.longTurn.streamingMs);
      record('view.turnWholePassMs', round, result.longTurn.wholePassMs);
      record('view.turnDeltaPatchBytes', round, result.longTurn.deltaPatchBytes);
      record('view.turnWholePatchBytes', round, result.longTurn.wholePatchBytes);
      progress(`  view after a token: ${result.shortMs.toFixed(3)} ms (100 msgs), ${result.longMs.toFixed(3)} ms (10k), patch ${result.patchBytes} B`);
      progress(
        `  10,000-token turn: streaming output ${result.longTurn.streamingMs.toFixed(4)} ms a token (whole pass ${result.longTurn.wholePassMs.toFixed(2)} ms), patch ${result.longTurn.deltaPatchBytes} B as a delta, ${result.longTurn.wholePatchBytes} B whole`,
      );
    });
  }
  for (let round = 0; round < RUNS; round += 1) {
    await step(`fold round ${round + 1}`, async () => {
      const result = await runFoldBenchInChild();
      record('fold.eventsPerSecond', round, result.foldEventsPerSecond);
      record('merge.ms', round, result.mergeMs);
      progress(`  fold ${result.foldEventsPerSecond} events/s, merge ${result.mergeMs.toFixed(1)} ms`);
    });
  }

  const adapterBench = await loadAdapterBench();
  let adapterNote = typeof adapterBench === 'string' ? `n/a: ${adapterBench}` : '';
  if (typeof adapterBench !== 'string') {
    for (let round = 0; round < RUNS; round += 1) {
      await step(`http-adapters round ${round + 1}`, async () => {
        progress(`http-adapters bench ${round + 1}/${RUNS}`);
        const result = await adapterBench({ seconds: SECONDS, connections: 16 });
        for (const adapter of ['express', 'fastify'] as const) {
          record(`${adapter}.rps`, round, result[adapter].rps);
          record(`${adapter}.p50`, round, result[adapter].p50Ms);
          record(`${adapter}.p99`, round, result[adapter].p99Ms);
          record(`${adapter}.cpu`, round, result[adapter].serverCpuMsPerRequest);
        }
      });
    }
    adapterNote = '16 conn, from bench/http-adapters.bench.ts';
  }

  const table = [...rows(adapterNote), ...citusRows(samples)];
  const rendered = renderTable(table);
  const tally = verdicts(table);
  const header = machine(settings, loadAtStart, jiffiesAtStart, citus?.description ?? `- Citus section: ${citusSkip ? `skipped (${citusSkip})` : 'did not run (see Errors)'}`);
  const wall = `${((performance.now() - startedAt) / 1000).toFixed(0)} s`;
  const citusWall = citus ? `, of which the Citus section ${(citus.elapsedMs() / 1000).toFixed(0)} s` : '';
  const summary = `Targets: ${tally.pass} pass, ${tally.fail} fail, ${tally.missing} not measured. Bench wall time ${wall} (after the build)${citusWall}.`;
  process.stdout.write(`\n${header.join('\n')}\n\n${rendered}\n\n${summary}\n`);
  if (errors.length > 0) process.stdout.write(`\nErrors:\n${errors.map((e) => `- ${e}`).join('\n')}\n`);
  const markdown = [
    '# Benchmark results',
    '',
    'Generated by `npm run bench` (bench/run.ts); do not edit by hand, run it again. See bench/README.md.',
    '',
    '## Machine',
    '',
    ...header,
    '',
    '## Results',
    '',
    rendered,
    '',
    summary,
    '',
    ...(errors.length > 0 ? ['## Errors', '', ...errors.map((e) => `- ${e}`), ''] : []),
    citusCapacity(samples),
    '## Method',
    '',
    METHOD,
    '',
  ].join('\n');
  writeFileSync(RESULTS_FILE, markdown);
  process.stdout.write(`\nwrote ${RESULTS_FILE}\n`);
  if (errors.length > 0) process.exitCode = 1;
}

main()
  .catch((error: unknown) => {
    progress(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  })
  .finally(() => {
    cleanup();
    // pg pools of the in-process benches or a stuck socket must not keep the process alive.
    process.exit(process.exitCode ?? 0);
  });
