import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  decide,
  evolveAll,
  render,
  toSessionStreamId,
  type SessionCommand,
  type SessionState,
} from '../libs/domain/src/index.js';
import type { PostgresEventStore } from '../libs/event-store/src/index.js';
import { runMigrations, startEmbeddedDatabase } from '../libs/platform/src/index.js';
import { createSessionEventStore, SessionViews, SnapshotStore } from '../libs/read-models/src/index.js';
import { runAsScript } from './run-as-script.js';

/**
 * Append benchmark: `npm run bench:append`. Claim under test: an append costs the same on a 10,000-message
 * session as on a 100-message one (long/short ≤ 2×). Real write path without HTTP, on a throwaway embedded
 * PostgreSQL: views.loadLatest → decide → evolve → store.append(expectedVersion, with the inline summary row)
 * → views.remember, as SessionWriter does (libs/session-commands/src/session-writer.ts; no idempotency key, no
 * live NOTIFY).
 * `npm run bench` (bench/run.ts) calls `runAppendBench` with a database on its own durable cluster instead.
 */
const SNAPSHOT_EVERY = 200;
const ROWS_PER_BATCH = 10;
const WARMUP = 50;
const APPENDS = 300;
const COLD_READS = 7;
const T0 = 1_780_000_000;

type Step = 'load' | 'decide' | 'evolve' | 'append' | 'remember';
const STEPS: readonly Step[] = ['load', 'decide', 'evolve', 'append', 'remember'];
type Timing = Record<Step | 'total', number>;

/** Command rows as a request body has them (the command schemas' input types). */
interface BodyRow {
  readonly role: 'user' | 'assistant';
  readonly content: string;
  readonly timestamp: number;
}

const now = (): bigint => process.hrtime.bigint();
const ms = (from: bigint, to: bigint): number => Number(to - from) / 1e6;

class BenchWriter {
  constructor(
    private readonly store: PostgresEventStore,
    private readonly views: SessionViews,
  ) {}

  /** One SessionWriter.write attempt (no retry: the bench is the only writer), timed per step. */
  async write(sessionId: string, command: SessionCommand): Promise<Timing> {
    const t0 = now();
    const loaded = await this.views.loadLatest(sessionId);
    const t1 = now();
    if (!loaded.exists && command.type !== 'StartSession') throw new Error(`session ${sessionId} not found`);
    const decision = decide(command, loaded.state);
    const t2 = now();
    if (decision.duplicate || decision.events.length === 0) throw new Error(`unexpected duplicate on ${sessionId}`);
    const state: SessionState = evolveAll(loaded.state, decision.events);
    const t3 = now();
    const result = await this.store.append(
      toSessionStreamId(sessionId),
      decision.events.map((event) => ({ type: event.type, data: event.data, metadata: {} })),
      { expectedVersion: loaded.version, idempotencyKeys: [], context: { state } },
    );
    const t4 = now();
    this.views.remember(sessionId, result.version, state);
    const t5 = now();
    return {
      load: ms(t0, t1),
      decide: ms(t1, t2),
      evolve: ms(t2, t3),
      append: ms(t3, t4),
      remember: ms(t4, t5),
      total: ms(t0, t5),
    };
  }
}

const words = (n: number, seed: number): string =>
  Array.from({ length: n }, (_, i) => `w${(seed * 31 + i * 7) % 997}`).join(' ');

/** Seeds a realistic session: per batch of 10 messages, the agent store's copy of them and a streamed run journal. */
async function seed(writer: BenchWriter, sessionId: string, messages: number): Promise<void> {
  await writer.write(sessionId, { type: 'StartSession', data: { sessionId, title: sessionId, createdAt: T0 } });
  let rowId = 0;
  for (let batch = 0; batch * ROWS_PER_BATCH < messages; batch += 1) {
    const t = T0 + batch * 60;
    const rows: BodyRow[] = Array.from({ length: ROWS_PER_BATCH }, (_, i) =>
      i % 2 === 0
        ? { role: 'user', content: `question ${batch}.${i}: ${words(12, batch + i)}`, timestamp: t + i }
        : { role: 'assistant', content: `answer ${batch}.${i}: ${words(60, batch + i)}`, timestamp: t + i },
    );
    await writer.write(sessionId, { type: 'RecordMessages', data: { rows } });
    const stateRows = rows.map((row, i) => ({
      ...row,
      content: row.role === 'user' ? `[Workspace::v1: /w]\n${row.content}` : row.content,
      timestamp: t + i + 0.25,
      rowId: ++rowId,
      active: true,
    }));
    await writer.write(sessionId, { type: 'ObserveStateRows', data: { rows: stateRows, observedAt: t + 30 } });
    const runId = `seed-run-${batch}`;
    await writer.write(sessionId, {
      type: 'RecordJournalEvents',
      data: {
        runId,
        events: [
          { seq: 1, event: 'tool', payload: { name: 'search', preview: `item ${batch}`, args: { q: `item ${batch}` } }, createdAt: t + 1 },
          { seq: 2, event: 'tool_complete', payload: { name: 'search', duration: 0.4, is_error: false }, createdAt: t + 2 },
          { seq: 3, event: 'token', payload: { text: words(8, batch) }, createdAt: t + 3 },
          { seq: 4, event: 'done', payload: {}, createdAt: t + 4 },
        ],
      },
    });
  }
}

/** Waits until no snapshot write is in flight (the newest snapshot version stops moving). */
async function settleSnapshots(snapshots: SnapshotStore, streamIds: readonly string[]): Promise<number[]> {
  let previous = '';
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const versions = await Promise.all(streamIds.map((id) => snapshots.latestVersion(id)));
    const key = versions.join(',');
    if (key === previous) return versions;
    previous = key;
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
const f = (value: number, width = 8, digits = 3): string => value.toFixed(digits).padStart(width);

interface Target {
  readonly name: string;
  readonly sessionId: string;
  readonly messages: number;
  readonly timings: Timing[];
  seq: number;
  rowTime: number;
}

function command(target: Target, index: number): SessionCommand {
  if (index % 2 === 0) {
    target.seq += 1;
    return {
      type: 'RecordJournalEvents',
      data: { runId: 'bench-run', events: [{ seq: target.seq, event: 'token', payload: { text: ` t${target.seq}` }, createdAt: T0 + 1e6 + target.seq }] },
    };
  }
  target.rowTime += 1;
  const role = target.rowTime % 2 === 0 ? 'user' : 'assistant';
  return { type: 'RecordMessages', data: { rows: [{ role, content: `${role} bench row ${target.rowTime}`, timestamp: T0 + 1e6 + target.rowTime }] } };
}

export interface AppendBenchOptions {
  /** An empty database to migrate and use; without it a throwaway embedded PostgreSQL is started. */
  readonly databaseUrl?: string;
  /** Receives the detail lines (the tables `npm run bench:append` prints). */
  readonly log?: (line: string) => void;
}

export interface AppendBenchResult {
  readonly shortP50Ms: number;
  readonly longP50Ms: number;
  /** p50 append on the 10,000-message session ÷ p50 on the 100-message one. */
  readonly p50Ratio: number;
  readonly meanRatio: number;
}

export async function runAppendBench(options: AppendBenchOptions = {}): Promise<AppendBenchResult> {
  const log = options.log ?? (() => undefined);
  let dataDir: string | undefined;
  let db: { url: string; stop(): Promise<void> };
  if (options.databaseUrl) {
    db = { url: options.databaseUrl, stop: async () => undefined };
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'chronicle-append-bench-'));
    chmodSync(dataDir, 0o755);
    db = await startEmbeddedDatabase({ dataDir, persistent: false });
  }
  const pool = new pg.Pool({ connectionString: db.url, max: 10, pipeline: true });
  try {
    await runMigrations(db.url);
    const store = await createSessionEventStore(pool);
    const snapshots = new SnapshotStore(pool);
    const views = new SessionViews(store, snapshots, {
      snapshotEvery: SNAPSHOT_EVERY,
      onError: (error) => console.error('snapshot failed:', error),
    });
    const writer = new BenchWriter(store, views);
    const targets: Target[] = [
      { name: 'short', sessionId: 'bench-short', messages: 100, timings: [], seq: 0, rowTime: 0 },
      { name: 'long', sessionId: 'bench-long', messages: 10_000, timings: [], seq: 0, rowTime: 0 },
    ];

    const seedStart = now();
    for (const target of targets) await seed(writer, target.sessionId, target.messages);
    const streamIds = targets.map((t) => toSessionStreamId(t.sessionId));
    const settled = await settleSnapshots(snapshots, streamIds);
    for (const [i, target] of targets.entries()) {
      const head = await store.head(streamIds[i]);
      log(
        `seeded ${target.name}: ${target.messages} messages, ${head?.version} events, snapshot @${settled[i]}`,
      );
    }
    log(`seeding took ${(ms(seedStart, now()) / 1000).toFixed(1)} s`);

    // Warm-up (JIT, pool connections), then N measured appends per session, alternating sessions and kinds.
    for (let i = 0; i < WARMUP; i += 1) for (const target of targets) await writer.write(target.sessionId, command(target, i));
    for (let i = 0; i < APPENDS; i += 1) {
      const order = i % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) target.timings.push(await writer.write(target.sessionId, command(target, i)));
    }
    await settleSnapshots(snapshots, streamIds);

    log('\nsession  messages  appends   p50 ms   p95 ms  mean ms');
    for (const t of targets) {
      const totals = t.timings.map((x) => x.total);
      log(
        `${t.name.padEnd(7)} ${String(t.messages).padStart(9)} ${String(totals.length).padStart(8)} ${f(percentile(totals, 50))} ${f(percentile(totals, 95))} ${f(mean(totals))}`,
      );
    }
    log('\nper step, mean ms (p95 ms):');
    log(`session  ${STEPS.map((s) => s.padStart(17)).join('')}`);
    for (const t of targets) {
      const cells = STEPS.map((s) => {
        const values = t.timings.map((x) => x[s]);
        return `${f(mean(values), 7)} (${f(percentile(values, 95), 6)})`.padStart(17);
      });
      log(`${t.name.padEnd(8)} ${cells.join('')}`);
    }
    const maxTotals = targets.map((t) => Math.max(...t.timings.map((x) => x.total)));
    log(`max single append ms: short ${maxTotals[0].toFixed(3)}, long ${maxTotals[1].toFixed(3)}`);

    // Cold reads: process-level cache cleared before each one (snapshot + tail fold; then render).
    log(`\ncold read after views.clear(), median of ${COLD_READS} (ms):`);
    log('session     version    load   render');
    for (const t of targets) {
      const loads: number[] = [];
      const renders: number[] = [];
      let version = 0;
      for (let i = 0; i < COLD_READS; i += 1) {
        views.clear();
        const a = now();
        const loaded = await views.load(t.sessionId);
        const b = now();
        render(loaded.state);
        const c = now();
        version = loaded.version;
        loads.push(ms(a, b));
        renders.push(ms(b, c));
      }
      log(`${t.name.padEnd(7)} ${String(version).padStart(11)} ${f(percentile(loads, 50))} ${f(percentile(renders, 50))}`);
    }

    const [short, long] = targets.map((t) => t.timings.map((x) => x.total));
    const p50Ratio = percentile(long, 50) / percentile(short, 50);
    log(`\nappend long/short p50 ratio: ${p50Ratio.toFixed(2)}`);
    log(`append long/short ratio: ${(mean(long) / mean(short)).toFixed(2)} (mean)`);
    return { shortP50Ms: percentile(short, 50), longP50Ms: percentile(long, 50), p50Ratio, meanRatio: mean(long) / mean(short) };
  } finally {
    await pool.end();
    await db.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

runAsScript(import.meta.url, () => runAppendBench({ log: (line) => console.log(line) }));
