import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toSessionStreamId } from '../libs/domain/src/index.js';
import { runMigrations } from '../libs/platform/src/index.js';
import { freePort } from '../libs/platform/src/net/free-port.js';
import {
  citusMissing,
  createCitusDatabase,
  NODE_NAMES,
  nodeUrl,
  onNode,
  postmasterPid,
  startCitusCluster,
  stopCitusCluster,
  stopCitusClusterNow,
  type CitusCluster,
  type CitusNodeName,
} from '../test/support/citus-cluster.js';
import { BENCH_SERVER_SETTINGS, readServerSettings, startBenchCluster, type BenchCluster } from './bench-postgres.js';
import { journalRequest, metricValue, projectorBusyMs, startChronicle, startJournalSession, type Chronicle, type JournalClient } from './chronicle-ingest.bench.js';
import { runHttpLoad } from './http-load.js';
import { DURATION_MS, RUNS, SECONDS, SETTLE_MS, WARMUP_MS } from './knobs.js';
import { clusterCpuMs, processCpuMs } from './proc-cpu.js';
import { formatNumber, median, renderTable, verdicts, type ResultRow } from './results-table.js';
import { runAsScript } from './run-as-script.js';
import { Samples } from './samples.js';
import { killAllServiceProcesses } from './service-process.js';

/**
 * The Citus section of `npm run bench` (issue 28 item 9), also alone as `npm run bench:citus`.
 *
 * A local Citus cluster of its own (test/support/citus-cluster.js: a coordinator and two workers, PostgreSQL 15
 * with Citus preloaded, on disk in the OS temp dir like the bench PostgreSQL, with its very settings:
 * `BENCH_SERVER_SETTINGS`, read back from every node and compared), Chronicle's migrations applied through the
 * coordinator, and two Chronicle replicas, each connected to one worker. Beside it, on the bench's one
 * PostgreSQL, a Chronicle of its own (the baseline, a fresh database with only this section's sessions).
 *
 * Every round measures both shapes on both, each pair back to back, the order turning every round (ABBA, then
 * BAAB): 1-event journal POSTs at 16 clients and 100-event POSTs at 4, the load client and route of the
 * one-server rows (bench/chronicle-ingest.bench.ts). On Citus the clients are split evenly over the two
 * replicas and their sessions over the two workers (ids picked by their shard's placement), so half of each
 * replica's appends are for sessions on the other worker, as with sessions spread at random over two workers.
 * CPU from the window's start until the session index has caught up and the measured processes are back to their
 * quiet rate: each node's PostgreSQL
 * processes (as proc-cpu.ts counts a cluster) and each replica's process, per event acknowledged; a worker's per
 * event of the sessions it holds. Rows and capacity model: `citusRows`, `citusCapacity`.
 */
const DATABASE = 'chronicle_citus';
const WORKERS = ['worker1', 'worker2'] as const satisfies readonly CitusNodeName[];
type Worker = (typeof WORKERS)[number];

interface Shape {
  readonly id: string;
  readonly label: string;
  readonly connections: number;
  readonly eventsPerRequest: number;
}

const SHAPES: readonly Shape[] = [
  { id: '1x16', label: '1-event POSTs, 16 clients', connections: 16, eventsPerRequest: 1 },
  { id: '100x4', label: '100-event POSTs, 4 clients', connections: 4, eventsPerRequest: 100 },
];
const CAPACITY_WORKERS = [2, 4, 8, 16] as const;

/** Figure ids: the shape on Citus, and on the one PostgreSQL. */
const citusId = (shape: Shape): string => `citus${shape.id}`;
const baseId = (shape: Shape): string => `citusBase${shape.id}`;

export interface CitusSectionOptions {
  /** The bench's one PostgreSQL: the baseline Chronicle's database is made there. */
  readonly single: BenchCluster;
  /** Where the services keep their data folders. */
  readonly workDir: string;
  readonly samples: Samples;
  readonly progress: (message: string) => void;
}

export interface CitusSection {
  /** One line for the machine header: the cluster, its versions and settings. */
  readonly description: string;
  /** One round: both shapes, each on one PostgreSQL and on Citus back to back. */
  round(round: number): Promise<void>;
  /** Wall time the section has taken so far (its start and its rounds), ms. */
  elapsedMs(): number;
  stop(): Promise<void>;
  /** Synchronous, for exit handlers: the cluster's servers and data (the services die with killAllServiceProcesses). */
  stopNow(): void;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** The processes a phase's CPU is read from (`readCpu`). */
const MEASURED = ['coordinator', 'worker1', 'worker2', 'replica1', 'replica2', 'service', 'pg'] as const;
/** A phase's CPU window ends when its processes are back to their quiet rate plus this (% of one core)… */
const QUIET_MARGIN = 20;
/** …or this long after the load at most. */
const QUIET_MAX_MS = 15_000;
/** The warm-up each service gets, per shape, before the rounds (not measured). */
const CITUS_WARMUP_MS = 3000;
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/**
 * `BENCH_CITUS_CONF`: extra postgresql.conf lines for every node, `;`-separated, for diagnosis (e.g.
 * `shared_preload_libraries='citus,pg_stat_statements'`; with pg_stat_statements preloaded the section creates
 * the extension and prints each node's heaviest statements at its end). Unset in a bench run.
 */
function extraSettings(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of (process.env.BENCH_CITUS_CONF ?? '').split(';')) {
    const at = line.indexOf('=');
    if (at > 0) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

/**
 * Why `npm run bench` skips the section here (Citus not installed), or null when it runs. Under
 * CHRONICLE_REQUIRE_CITUS=1 (as in CI) it is never skipped: a missing Citus then fails the section's start.
 */
export function citusSkipped(): string | null {
  const missing = citusMissing();
  return missing && process.env.CHRONICLE_REQUIRE_CITUS !== '1' ? `${missing}; install it with bash ../shared/citus/install.sh` : null;
}

export async function startCitusSection(options: CitusSectionOptions): Promise<CitusSection> {
  const { samples, progress } = options;
  const { record, runsOf, step } = samples;
  const startedAt = performance.now();
  const missing = citusMissing();
  if (missing) throw new Error(`${missing}; install it with bash ../shared/citus/install.sh`);
  const extra = extraSettings();
  const cluster = await startCitusCluster({
    freePort,
    dataRoot: tmpdir(),
    prefix: 'chronicle-bench-citus-',
    label: 'bench/citus.bench.ts (the bench PostgreSQL\'s settings)',
    settings: { ...BENCH_SERVER_SETTINGS, ...extra },
  });
  const services: Chronicle[] = [];
  try {
    progress(`Citus: coordinator + 2 workers up in ${cluster.startMs} ms (${cluster.nodes.map((n) => `${n.name} :${n.port}`).join(', ')})`);
    await createCitusDatabase(cluster, DATABASE);
    const statements = (extra.shared_preload_libraries ?? '').includes('pg_stat_statements');
    // Created through the coordinator, Citus creates it on the workers too.
    if (statements) await onNode(cluster, 'coordinator', DATABASE, (c) => c.query('CREATE EXTENSION pg_stat_statements'));
    const description = await describe(cluster, await options.single.settings());
    await runMigrations(nodeUrl(cluster, 'coordinator', DATABASE));
    const nodeCpu = (name: CitusNodeName): number => {
      const pid = postmasterPid(cluster, name);
      return pid === null ? Number.NaN : clusterCpuMs(pid);
    };
    /** The % of one core `read` (a CPU ms counter) rises by over `ms` of quiet. */
    const idleShare = async (read: () => number, ms = 3000): Promise<number> => {
      const before = read();
      await sleep(ms);
      return (100 * (read() - before)) / ms;
    };
    // Background cost while nothing is asked of them (it runs beside every other phase of the bench): the nodes
    // alone, then with the replicas up, whose background passes (the session_index projector's, every second)
    // reach every node.
    await sleep(1000);
    record('citusIdle.nodesAlone', 0, await idleShare(() => sum(NODE_NAMES.map(nodeCpu))));

    const baseline = await startChronicle(await options.single.createDatabase('chronicle_citus_baseline'), join(options.workDir, 'citus-baseline'));
    services.push(baseline);
    // One replica per worker, each connected to its worker only (the migrations ran through the coordinator).
    const replicas = await Promise.all(WORKERS.map((worker) => startChronicle(nodeUrl(cluster, worker, DATABASE), join(options.workDir, `citus-${worker}`))));
    services.push(...replicas);
    progress(`Citus: migrated; replicas on worker1 (pid ${replicas[0]!.service.pid}) and worker2 (pid ${replicas[1]!.service.pid}), baseline on one PostgreSQL (pid ${baseline.service.pid})`);

    /** CPU ms so far of each thing measured (MEASURED): the nodes' PostgreSQL, the replicas, the baseline and its PostgreSQL. */
    const readCpu = (): Record<string, number> => ({
      coordinator: nodeCpu('coordinator'),
      worker1: nodeCpu('worker1'),
      worker2: nodeCpu('worker2'),
      replica1: processCpuMs(replicas[0]!.service.pid),
      replica2: processCpuMs(replicas[1]!.service.pid),
      service: processCpuMs(baseline.service.pid),
      pg: clusterCpuMs(options.single.postmasterPid()),
    });
    /** Connections opened on each node so far (pg_stat_database.sessions of the section's database). */
    const readSessions = (): Promise<number[]> =>
      Promise.all(
        NODE_NAMES.map((name) =>
          onNode(cluster, name, 'postgres', async (c) => Number((await c.query(`SELECT sessions FROM pg_stat_database WHERE datname = $1`, [DATABASE])).rows[0]?.sessions ?? Number.NaN)),
        ),
      );

    await sleep(2000);
    const idleFrom = readCpu();
    const idleNodes = await idleShare(() => sum(NODE_NAMES.map(nodeCpu)));
    const idleTo = readCpu();
    const idleOf = (names: readonly string[]): number => (100 * sum(names.map((n) => idleTo[n]! - idleFrom[n]!))) / 3000;
    record('citusIdle.nodes', 0, idleNodes);
    record('citusIdle.replicas', 0, idleOf(['replica1', 'replica2']));
    /** Everything a phase of the section measures, quiet: the level a phase's aftermath must come back to. */
    const quietShare = idleOf(MEASURED);
    progress(`Citus idle: the nodes alone ${formatNumber(runsOf('citusIdle.nodesAlone')[0]!)} % of a core, with the replicas up ${formatNumber(idleNodes)} % (+ the replicas' own ${formatNumber(runsOf('citusIdle.replicas')[0]!)} %)`);

    const workerPorts = new Map(WORKERS.map((worker) => [cluster.nodes.find((n) => n.name === worker)!.port, worker] as const));
    /**
     * `count` session ids, half of them on each worker, ordered so that client i goes to replica i % 2 and its
     * session to worker (i >> 1) % 2: each replica gets as many sessions on its own worker as on the other.
     */
    const placedSessions = async (prefix: string, count: number): Promise<{ sessionId: string; worker: Worker }[]> => {
      const candidates = Array.from({ length: count * 8 }, (_, i) => `${prefix}-s${i}`);
      const { rows } = await onNode(cluster, 'coordinator', DATABASE, (c) =>
        c.query<{ nodeport: number }>(
          `SELECT n.nodeport FROM unnest($1::text[]) WITH ORDINALITY AS s(stream_id, i)
             JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('streams', s.stream_id)
             JOIN pg_dist_node n ON n.groupid = p.groupid
            ORDER BY s.i`,
          [candidates.map(toSessionStreamId)],
        ),
      );
      const on = new Map<Worker, string[]>(WORKERS.map((w) => [w, []]));
      rows.forEach((row, i) => on.get(workerPorts.get(row.nodeport)!)?.push(candidates[i]!));
      return Array.from({ length: count }, (_, i) => {
        const worker = WORKERS[(i >> 1) % 2]!;
        const sessionId = on.get(worker)!.shift();
        if (sessionId === undefined) throw new Error(`too few of ${candidates.length} session ids on ${worker}`);
        return { sessionId, worker };
      });
    };

    /** A shape's clients, each with a session of its own (on Citus: placed as `placedSessions` says), and where each sends. */
    const startClients = async (prefix: string, shape: Shape, onCitus: boolean): Promise<{ clients: JournalClient[]; ports: number[]; holders: Worker[] }> => {
      const clients: JournalClient[] = [];
      const ports: number[] = [];
      const holders: Worker[] = [];
      if (onCitus) {
        for (const [i, { sessionId, worker }] of (await placedSessions(prefix, shape.connections)).entries()) {
          const replica = replicas[i % 2]!;
          clients.push(await startJournalSession(replica.port, sessionId, i));
          ports.push(replica.port);
          holders.push(worker);
        }
      } else {
        for (let i = 0; i < shape.connections; i += 1) {
          clients.push(await startJournalSession(baseline.port, `${prefix}-c${i}`, i));
          ports.push(baseline.port);
        }
      }
      return { clients, ports, holders };
    };
    // How far the session index trails the log (the projector's gauge, set on its 1 s tick).
    const indexLag = async (onCitus: boolean): Promise<number> =>
      Math.max(...(await Promise.all((onCitus ? replicas : [baseline]).map((s) => metricValue(s.port, 'chronicle_projection_lag_events{projection="session_index"}')))));
    /**
     * After a load: waits until the session index has caught up and every measured process is back to its quiet
     * rate (at least the bench's settle, at most QUIET_MAX_MS). Answers how long that took, ms.
     */
    const quiet = async (onCitus: boolean): Promise<number> => {
      const settleFrom = performance.now();
      await sleep(SETTLE_MS);
      const measuredCpu = (): number => {
        const cpu = readCpu();
        return sum(MEASURED.map((n) => cpu[n]!));
      };
      for (let last = measuredCpu(); performance.now() - settleFrom < QUIET_MAX_MS; ) {
        await sleep(500);
        const now = measuredCpu();
        const share = (100 * (now - last)) / 500;
        last = now;
        if (share <= quietShare + QUIET_MARGIN && (await indexLag(onCitus)) === 0) break;
      }
      return performance.now() - settleFrom;
    };

    const measure = async (round: number, shape: Shape, onCitus: boolean): Promise<void> => {
      const id = onCitus ? citusId(shape) : baseId(shape);
      const { clients, ports, holders } = await startClients(`r${round}-${id}`, shape, onCitus);
      const projectorBefore = onCitus ? await Promise.all(replicas.map((r) => projectorBusyMs(r.port))) : [];
      const sessionsBefore = onCitus ? await readSessions() : [];
      const sessionsFrom = performance.now();
      let before: Record<string, number> = {};
      let seqsAtWindow: number[] = [];
      const result = await runHttpLoad({
        port: ports[0]!,
        portOf: (client) => ports[client]!,
        connections: shape.connections,
        durationMs: DURATION_MS,
        warmupMs: WARMUP_MS,
        request: (client) => journalRequest(clients[client]!, shape.eventsPerRequest, ports[client]!),
        onWindowStart: () => {
          before = readCpu();
          seqsAtWindow = clients.map((c) => c.seq);
        },
      });
      samples.check(id, result);
      const lag = await indexLag(onCitus);
      record(`${id}.lag`, round, lag);
      const events = result.ok * shape.eventsPerRequest;
      const rate = events / (result.windowMs / 1000);
      record(`${id}.eventsPerSecond`, round, rate);
      record(`${id}.p50`, round, result.p50Ms);
      record(`${id}.p99`, round, result.p99Ms);
      // Deferred work (the projectors' catch-up above all, snapshots) is the events' own: the CPU window runs until
      // the session index has caught up and every measured process is back to its quiet rate (at least the
      // bench's settle), and the next phase starts after it, undisturbed.
      const settleMs = await quiet(onCitus);
      record(`${id}.settle`, round, settleMs / 1000);
      const after = readCpu();
      const used = (name: string): number => after[name]! - before[name]!;
      let cpuNote: string;
      if (onCitus) {
        // The events each worker holds: what its clients sent in the window (seq is the events sent).
        const sent = clients.map((c, i) => c.seq - seqsAtWindow[i]!);
        const share = (worker: Worker): number => sum(sent.filter((_, i) => holders[i] === worker)) / sum(sent);
        const perOwnEvent = WORKERS.map((worker) => used(worker) / (events * share(worker)));
        const replicaCpu = used('replica1') + used('replica2');
        const projector = (await Promise.all(replicas.map((r) => projectorBusyMs(r.port)))).map((busy, i) => busy - projectorBefore[i]!);
        const opened = (await readSessions()).map((n, i) => n - sessionsBefore[i]!);
        record(`${id}.coordinatorCpu`, round, used('coordinator') / events);
        WORKERS.forEach((worker, i) => record(`${id}.${worker}Cpu`, round, perOwnEvent[i]!));
        record(`${id}.workerCpu`, round, (used('worker1') + used('worker2')) / events);
        record(`${id}.replicaCpu`, round, replicaCpu / events);
        record(`${id}.totalCpu`, round, (used('coordinator') + used('worker1') + used('worker2') + replicaCpu) / events);
        record(`${id}.coordinatorShare`, round, (100 * used('coordinator')) / events / (sum(perOwnEvent) / perOwnEvent.length));
        record(`${id}.projectorCpu`, round, sum(projector) / events);
        record(`${id}.projectorReplicas`, round, projector.filter((ms) => ms > 0).length);
        record(`${id}.connectionsPerSecond`, round, sum(opened) / ((performance.now() - sessionsFrom) / 1000));
        cpuNote =
          `coordinator ${formatNumber(used('coordinator') / events)}, workers ${perOwnEvent.map(formatNumber).join(' / ')} (own events), ` +
          `replicas ${formatNumber(replicaCpu / events)} ms/event (projector ${projector.map((ms) => `${ms.toFixed(0)}`).join(' / ')} ms); ` +
          `connections opened ${opened.join(' / ')}`;
      } else {
        record(`${id}.serviceCpu`, round, used('service') / events);
        record(`${id}.pgCpu`, round, used('pg') / events);
        record(`${id}.totalCpu`, round, (used('service') + used('pg')) / events);
        cpuNote = `service ${formatNumber(used('service') / events)}, PostgreSQL ${formatNumber(used('pg') / events)} ms/event`;
      }
      const problems = result.non2xxTotal + result.errors > 0 ? `, ${result.non2xxTotal} non-2xx, ${result.errors} errors` : '';
      progress(`  ${id}: ${Math.round(rate)} events/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms${problems}; ${cpuNote}; index lag ${lag} events at the end, quiet ${(settleMs / 1000).toFixed(1)} s after`);
    };

    // A warm-up of every service, before the rounds and not measured. Each is a fresh process, and a fresh
    // process's first load carries one-time work: without it, round 1 used 0.64 ms of the replicas' CPU per event
    // against 0.38 and 0.32 in rounds 2 and 3 (the baseline service 0.27 against 0.22). The long-running services
    // the rows describe have paid it long before, on both sides alike. It steadies the rounds; it did not raise
    // the ratio (bench/README.md, "Warm-up before the Citus rounds").
    for (const shape of SHAPES) {
      for (const onCitus of [false, true]) {
        const id = `warm-${onCitus ? citusId(shape) : baseId(shape)}`;
        await step(`${id} (not measured)`, async () => {
          const { clients, ports } = await startClients(id, shape, onCitus);
          const result = await runHttpLoad({
            port: ports[0]!,
            portOf: (client) => ports[client]!,
            connections: shape.connections,
            durationMs: CITUS_WARMUP_MS,
            request: (client) => journalRequest(clients[client]!, shape.eventsPerRequest, ports[client]!),
          });
          if (result.non2xxTotal + result.errors > 0) throw new Error(`${id}: ${result.non2xxTotal} non-2xx answers, ${result.errors} errors`);
          await quiet(onCitus);
        });
      }
    }
    progress(`Citus: every service warmed up (${CITUS_WARMUP_MS / 1000} s of each shape, not measured)`);

    let spentMs = performance.now() - startedAt;
    let stopped = false;
    const stopNow = (): void => {
      if (stopped) return;
      stopped = true;
      stopCitusClusterNow(cluster);
    };
    return {
      description,
      async round(round) {
        const from = performance.now();
        for (const [s, shape] of SHAPES.entries()) {
          // ABBA in even rounds, BAAB in odd ones: neither side always goes first.
          const order = (round + s) % 2 === 0 ? [false, true] : [true, false];
          for (const onCitus of order) {
            await step(`${onCitus ? citusId(shape) : baseId(shape)} round ${round + 1}`, () => measure(round, shape, onCitus));
          }
        }
        spentMs += performance.now() - from;
      },
      elapsedMs: () => spentMs,
      async stop() {
        const from = performance.now();
        if (statements) await printStatements(cluster, progress);
        await Promise.all(services.map((s) => s.service.stop()));
        if (!stopped) {
          stopped = true;
          await stopCitusCluster(cluster);
        }
        spentMs += performance.now() - from;
      },
      stopNow,
    };
  } catch (error) {
    await Promise.all(services.map((s) => s.service.stop()));
    await stopCitusCluster(cluster).catch(() => undefined);
    throw error;
  }
}

/** The nodes' versions and settings, checked against the one-server cluster's: the comparison is fair only if they match. */
async function describe(cluster: CitusCluster, single: Record<string, string>): Promise<string> {
  const compared = ['fsync', 'synchronous_commit', 'full_page_writes'] as const;
  let version = '';
  for (const name of NODE_NAMES) {
    const url = nodeUrl(cluster, name, DATABASE);
    const settings = await readServerSettings(url);
    for (const key of compared) {
      if (settings[key] !== single[key]) throw new Error(`Citus ${name} runs with ${key}=${settings[key]}, the one-server cluster with ${single[key]}: not a fair comparison`);
    }
    version ||= await onNode(cluster, name, DATABASE, async (c) => {
      const citus = String((await c.query<{ v: string }>('SELECT citus_version() AS v')).rows[0]!.v).split(' ').slice(0, 2).join(' ');
      return `${citus}, PostgreSQL ${settings.server_version}`;
    });
  }
  return (
    `- Citus section: ${version}; a coordinator and 2 workers on this machine, own clusters on 127.0.0.1 in the OS temp dir, ` +
    `every node with the bench PostgreSQL's settings (${compared.map((k) => `${k}=${single[k]}`).join(', ')}, read back from each node); ` +
    'two Chronicle replicas, each connected to one worker'
  );
}

/** With pg_stat_statements preloaded (BENCH_CITUS_CONF): each node's heaviest statements, to stderr. */
async function printStatements(cluster: CitusCluster, progress: (message: string) => void): Promise<void> {
  for (const name of NODE_NAMES) {
    const { rows } = await onNode(cluster, name, DATABASE, (c) =>
      c.query<{ calls: string; total: number; mean: number; plan: number; rows: string; query: string }>(
        `SELECT calls::text, round(total_exec_time::numeric, 0)::float8 AS total, round(mean_exec_time::numeric, 3)::float8 AS mean,
                round(total_plan_time::numeric, 0)::float8 AS plan, rows::text,
                regexp_replace(left(query, 160), '\\s+', ' ', 'g') AS query
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          ORDER BY total_exec_time DESC LIMIT 10`,
      ),
    );
    progress(`pg_stat_statements on ${name} (total ms executing, calls, mean ms, ms planning (with track_planning), rows, query):`);
    for (const row of rows) progress(`  ${row.total} ms  ${row.calls} calls  ${row.mean} ms  plan ${row.plan} ms  ${row.rows} rows  ${row.query}`);
  }
}

/** The section's rows of the results table (n/a where it did not run). */
export function citusRows({ runsOf, ratioRuns, checkText }: Samples): ResultRow[] {
  return [
    ...SHAPES.flatMap((shape): ResultRow[] => {
      const [b, a] = [citusId(shape), baseId(shape)];
      return [
        { figure: `Citus baseline: Chronicle on one PostgreSQL, ${shape.label}`, unit: 'events/s', runs: runsOf(`${a}.eventsPerSecond`), checks: checkText(a) },
        {
          figure: `Citus: Chronicle on a coordinator + 2 workers, 2 replicas on the workers, ${shape.label}`,
          unit: 'events/s',
          runs: runsOf(`${b}.eventsPerSecond`),
          ratio: { runs: ratioRuns(`${b}.eventsPerSecond`, `${a}.eventsPerSecond`), of: 'one PostgreSQL, back to back' },
          target: { text: '≥ 0.5× one PostgreSQL', pass: (_v, r) => r >= 0.5 },
          checks: checkText(b),
        },
        { figure: `Citus, ${shape.label}, p99`, unit: 'ms', runs: runsOf(`${b}.p99`), ratio: { runs: ratioRuns(`${b}.p99`, `${a}.p99`), of: 'one PostgreSQL' } },
        { figure: `Citus, ${shape.label}, coordinator CPU (all its PostgreSQL processes)`, unit: 'ms/event', runs: runsOf(`${b}.coordinatorCpu`) },
        ...WORKERS.map((worker): ResultRow => ({
          figure: `Citus, ${shape.label}, ${worker} CPU per event of its sessions`,
          unit: 'ms/event',
          runs: runsOf(`${b}.${worker}Cpu`),
        })),
        {
          figure: `Citus, ${shape.label}, coordinator CPU per event ÷ a worker's (mean of both)`,
          unit: '%',
          runs: runsOf(`${b}.coordinatorShare`),
          target: { text: '≤ 25 %', pass: (v) => v <= 25 },
        },
        { figure: `Citus, ${shape.label}, both replicas' CPU`, unit: 'ms/event', runs: runsOf(`${b}.replicaCpu`), ratio: { runs: ratioRuns(`${b}.replicaCpu`, `${a}.serviceCpu`), of: 'the one-server service' } },
        { figure: `Citus, ${shape.label}, replicas' session_index projector (busy time)`, unit: 'ms/event', runs: runsOf(`${b}.projectorCpu`) },
        { figure: `Citus, ${shape.label}, replicas that ran the projector`, unit: 'of 2', runs: runsOf(`${b}.projectorReplicas`) },
        { figure: `Citus, ${shape.label}, connections opened on the 3 nodes`, unit: '/s', runs: runsOf(`${b}.connectionsPerSecond`) },
        {
          figure: `Citus, ${shape.label}, CPU total (3 nodes + 2 replicas)`,
          unit: 'ms/event',
          runs: runsOf(`${b}.totalCpu`),
          ratio: { runs: ratioRuns(`${b}.totalCpu`, `${a}.totalCpu`), of: 'one PostgreSQL + its service' },
        },
        { figure: `Citus, ${shape.label}, session index lag as the load ends (either replica)`, unit: 'events', runs: runsOf(`${b}.lag`) },
        { figure: `Citus baseline, ${shape.label}, session index lag as the load ends`, unit: 'events', runs: runsOf(`${a}.lag`) },
        { figure: `Citus, ${shape.label}, time to quiet after the load (CPU window's end)`, unit: 's', runs: runsOf(`${b}.settle`) },
        { figure: `Citus baseline, ${shape.label}, time to quiet after the load`, unit: 's', runs: runsOf(`${a}.settle`) },
        { figure: `Citus baseline, ${shape.label}, service CPU`, unit: 'ms/event', runs: runsOf(`${a}.serviceCpu`) },
        { figure: `Citus baseline, ${shape.label}, PostgreSQL CPU`, unit: 'ms/event', runs: runsOf(`${a}.pgCpu`) },
      ];
    }),
    { figure: 'Citus idle (before the rounds): the 3 nodes\' PostgreSQL, no replica up', unit: '% of a core', runs: runsOf('citusIdle.nodesAlone').slice(0, 1) },
    { figure: 'Citus idle (before the rounds): the 3 nodes\' PostgreSQL, 2 replicas up', unit: '% of a core', runs: runsOf('citusIdle.nodes').slice(0, 1) },
    { figure: 'Citus idle (before the rounds): the 2 replicas', unit: '% of a core', runs: runsOf('citusIdle.replicas').slice(0, 1) },
  ];
}

/**
 * What to expect with more workers, from the CPU each tier used here (medians over the rounds), as Markdown for
 * RESULTS.md. A model, not a measurement: the text it writes states its assumptions.
 */
export function citusCapacity(samples: Samples): string {
  const cores = os.availableParallelism();
  const node = cores * 1000; // CPU ms a node of `cores` cores gives per second
  const at = (id: string): number => median(samples.runsOf(id));
  // Each replica's background (every second: its try at the projector's lock and, when it gets it, a pass that
  // reads every node's fence and a page per origin over every shard; the lag gauge's count over every shard)
  // costs every node: ms/s per replica per node, from the idle rates (2 replicas, 3 nodes).
  const perReplicaNode = (10 * Math.max(0, at('citusIdle.nodes') - at('citusIdle.nodesAlone'))) / (2 * 3);
  const lines = [
    '## Citus capacity model (not a measurement)',
    '',
    'What to expect with 2, 4, 8 and 16 workers, derived from the CPU per acknowledged event each tier used in this ' +
      "run's Citus rows (medians) — a model from measured per-event costs, not a measurement of more workers.",
    '',
    `Assumptions: every worker and the coordinator is a machine of ${cores} cores of this machine's per-core speed, all of ` +
      'it for PostgreSQL; one Chronicle replica per worker, each with one core (a replica is one Node event loop), connected ' +
      "to its worker; sessions, and so appends, spread evenly over the workers; the load's shape as in the row; CPU is the " +
      "only limit (no disk, WAL flush, network or connection limit; the load client elsewhere). A tier's capacity is its " +
      "CPU ÷ its CPU per event; the figure to expect is the smallest, and that tier saturates first. Each tier's CPU per " +
      'event is taken as measured here (with 2 workers, half the appends entered through the worker that does not hold ' +
      'the session; with N workers (N−1)/N do), except what grows with the replicas:',
    '- one replica at a time runs the session_index projector (its advisory lock is on the coordinator): its work per ' +
      "event is the cluster's, whatever N, and runs on one replica's core, so it is a column of its own — the rate above " +
      "which the session index falls behind (appends go on being acknowledged); the replicas' capacity counts the rest " +
      'of their CPU per event, spread over N;',
    `- each replica's background reaches every node: measured idle, ${formatNumber(perReplicaNode)} ms/s of each ` +
      "node's CPU per replica (the nodes with 2 replicas up less the nodes alone, ÷ 2 replicas ÷ 3 nodes); with N " +
      "replicas every node gives N × that, taken off its CPU beyond the 2 replicas' share the figures carry. That is the " +
      'idle rate: under load the projector passes every 500 ms, so it is a lower bound.',
    '',
  ];
  for (const shape of SHAPES) {
    const id = citusId(shape);
    const worker = at(`${id}.workerCpu`);
    const coordinator = at(`${id}.coordinatorCpu`);
    const replica = at(`${id}.replicaCpu`);
    const projector = at(`${id}.projectorCpu`);
    const total = at(`${id}.totalCpu`);
    lines.push(
      `**${shape.label}.** CPU per event here: workers ${formatNumber(worker)} ms (both workers' CPU ÷ all events: one ` +
        `worker's per event it holds), coordinator ${formatNumber(coordinator)} ms, replicas ${formatNumber(replica)} ms ` +
        `(of which their projectors' busy time ${formatNumber(projector)} ms). Check on this machine: ${cores} cores ÷ ` +
        `${formatNumber(total)} ms of CPU per event in all = ${formatNumber(node / total)} events/s sustained; measured ` +
        `${formatNumber(at(`${id}.eventsPerSecond`))} in the load's window, whose CPU ran on ${formatNumber(at(`${id}.settle`))} s ` +
        "after it (the projectors' last passes), counted here: the window's rate is above what that CPU sustains.",
      '',
      "| Workers | Replicas' background on each node | Workers' capacity | Coordinator's | Replicas' (one per worker) | Expect | Saturates first | Session index projector's ceiling |",
      '|---|---|---|---|---|---|---|---|',
    );
    for (const n of CAPACITY_WORKERS) {
      const free = node - (n - 2) * perReplicaNode; // CPU ms/s of a node left beyond what the measured figures carry
      const replicaPerEvent = replica - projector;
      const tiers = [
        ['workers', Math.max(0, (n * free) / worker)],
        ['coordinator', Math.max(0, free / coordinator)],
        ['replicas', (n * 1000) / replicaPerEvent],
      ] as const;
      const [first, expect] = tiers.reduce((a, b) => (b[1] < a[1] ? b : a));
      lines.push(
        `| ${n} | ${formatNumber((100 * n * perReplicaNode) / node)} % | ${tiers.map(([, v]) => formatNumber(v)).join(' | ')} | ` +
          `${formatNumber(expect)} events/s | ${first} | ${projector > 0 ? `${formatNumber(1000 / projector)} events/s` : 'n/a'} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** `npm run bench:citus`: the section alone, with its own one-server PostgreSQL for the baseline. Prints its table. */
async function main(): Promise<void> {
  const startedAt = performance.now();
  const progress = (message: string): void => {
    process.stderr.write(`[bench:citus ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
  };
  const samples = new Samples(RUNS, progress);
  const workDir = mkdtempSync(join(tmpdir(), 'chronicle-bench-'));
  /** What runs, for the exit handler. */
  const up: { single?: BenchCluster; section?: CitusSection } = {};
  const cleanup = (): void => {
    killAllServiceProcesses();
    up.section?.stopNow();
    up.single?.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
  process.once('exit', cleanup);
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) process.once(signal, () => process.exit(code));
  progress(`${RUNS} runs × ${SECONDS} s per load figure (warm-up ${WARMUP_MS} ms)`);
  const single = (up.single = await startBenchCluster());
  const section = (up.section = await startCitusSection({ single, workDir, samples, progress }));
  for (let round = 0; round < RUNS; round += 1) {
    progress(`round ${round + 1}/${RUNS}`);
    await section.round(round);
  }
  await section.stop();
  const table = citusRows(samples);
  const tally = verdicts(table);
  process.stdout.write(
    `\n${section.description}\n\n${renderTable(table)}\n\nTargets: ${tally.pass} pass, ${tally.fail} fail, ${tally.missing} not measured. ` +
      `Section wall time ${(section.elapsedMs() / 1000).toFixed(0)} s; whole script ${((performance.now() - startedAt) / 1000).toFixed(0)} s.\n\n${citusCapacity(samples)}\n`,
  );
  if (samples.errors.length > 0) throw new Error(`${samples.errors.length} phase(s) could not run:\n${samples.errors.map((e) => `- ${e}`).join('\n')}`);
}

runAsScript(import.meta.url, main);
