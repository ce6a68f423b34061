import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { evolveAll, initialSessionState, toSessionStreamId, type SessionEvent, type SessionState } from '../libs/domain/src/index.js';
import { runMigrations } from '../libs/platform/src/index.js';
import { keystoreUrlFor, MasterKeys, newMasterKeyText, openKeyring, SEALED_FIELD, type SessionKeyring } from '../libs/event-store/src/index.js';
import { createSessionEventStore, SnapshotStore } from '../libs/read-models/src/index.js';
import { startBenchCluster } from './bench-postgres.js';
import { runAsScript } from './run-as-script.js';

/**
 * Whole-store audit benchmark: `npm run bench:audit` (DATABASE_URL, else its own throwaway cluster). Seeds two
 * store shapes through the PostgreSQL event store (real hash chains, the inline summary row; the two newest
 * snapshots written as the service keeps them): 1,000 sessions × 200 events and 100 sessions × 10,000 events,
 * turns of a submission, a streamed journal (a tool call, tokens, `done`), a settle and the agent store's copy.
 * Each shape is audited by a fresh child process (`audit-child.ts`: `auditAll`, default workers, or
 * BENCH_AUDIT_WORKERS), which reports its events/s, CPU and peak RSS; BENCH_AUDIT_RUNS audits per shape
 * (default 1). `npm run bench` calls `runAuditBench(url)`.
 */
const T0 = 1_790_000_000;
const TOKENS_PER_TURN = 40;
const APPEND_CHUNK = 500;

export interface AuditBenchFigure {
  readonly shape: string;
  readonly sessions: number;
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  /** CPU of the auditing process (all its threads; PostgreSQL not included): a figure a busy machine bends less. */
  readonly cpuSeconds: number;
  readonly peakRssMb: number;
  readonly mismatches: number;
}

function sessionEvents(sessionId: string, count: number): SessionEvent[] {
  const events: SessionEvent[] = [{ type: 'SessionStarted', data: { sessionId, title: `Bench ${sessionId}`, parentSessionId: null, createdAt: T0 } }];
  for (let turn = 0, rowId = 0; events.length < count; turn += 1) {
    const runId = `run-${turn}`;
    const t = T0 + turn * 600;
    const text = `question ${turn}: please look at item ${turn} and explain`;
    events.push({ type: 'UserMessageSubmitted', data: { runId, text, attachments: [], source: null, submittedAt: t } });
    let seq = 0;
    const journal = (event: string, payload: Record<string, unknown>, at: number) =>
      events.push({ type: 'JournalEventRecorded', data: { runId, seq: (seq += 1), event, payload, createdAt: at } });
    journal('tool', { name: 'search', preview: `item ${turn}`, args: { q: `item ${turn}` } }, t + 1);
    journal('tool_complete', { name: 'search', duration: 0.4, is_error: false }, t + 2);
    for (let i = 0; i < TOKENS_PER_TURN; i += 1) journal('token', { text: `w${i} ` }, t + 3 + i / 100);
    journal('done', {}, t + 10);
    const answer = Array.from({ length: TOKENS_PER_TURN }, (_, i) => `w${i}`).join(' ');
    const rows = [
      { role: 'user', content: text, timestamp: t },
      { role: 'assistant', content: answer, timestamp: t + 10 },
    ];
    events.push({ type: 'TurnSettled', data: { runId, rows, settledAt: t + 10 } } as SessionEvent);
    const stateRows = [
      { role: 'user', content: `[Workspace::v1: /w]\n${text}`, timestamp: t + 0.25, rowId: (rowId += 1), active: true },
      { role: 'assistant', content: answer, timestamp: t + 10.5, rowId: (rowId += 1), active: true },
    ];
    events.push({ type: 'StateRowsObserved', data: { rows: stateRows, observedAt: t + 11 } } as SessionEvent);
  }
  return events.slice(0, count);
}

/**
 * Appends each session in chunks (hash chain and summary row as the service writes them), two snapshots each.
 * With a keyring, each session's content is sealed with its data key, as the service writes it by default.
 */
export async function seedAuditStore(pool: pg.Pool, prefix: string, sessions: number, eventsEach: number, keyring: SessionKeyring | null = null): Promise<void> {
  const store = await createSessionEventStore(pool, { keyring });
  const snapshots = new SnapshotStore(pool, keyring);
  const one = async (n: number) => {
    const sessionId = `${prefix}-${n}`;
    const streamId = toSessionStreamId(sessionId);
    const events = sessionEvents(sessionId, eventsEach);
    const snapshotAt = new Set([Math.floor((eventsEach * 3) / 4), eventsEach]);
    let state: SessionState = initialSessionState();
    for (let at = 0; at < events.length; ) {
      const next = Math.min(events.length, at + APPEND_CHUNK, ...[...snapshotAt].filter((v) => v > at));
      state = evolveAll(state, events.slice(at, next));
      await store.append(streamId, events.slice(at, next), { expectedVersion: at, context: { state } });
      at = next;
      if (snapshotAt.has(at)) await snapshots.save(streamId, at, state);
    }
  };
  for (let n = 0; n < sessions; n += 8) await Promise.all(Array.from({ length: Math.min(8, sessions - n) }, (_, i) => one(n + i)));
}

export interface ChildAudit {
  readonly events: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly peakRssMb: number;
  readonly mismatches: number;
}

/**
 * The audit in a process of its own (`audit-child.ts`), so its peak RSS is the audit's alone. `masterKey`: the
 * store's content is sealed, its data keys in `<database>_keys` wrapped by this master key (the child opens them).
 */
export function auditInChild(url: string, masterKey?: string): Promise<ChildAudit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./audit-child.js', import.meta.url))], {
      env: { ...process.env, DATABASE_URL: url, BENCH_AUDIT_MASTER_KEY: masterKey ?? '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`audit child exited ${code}`))));
  });
}

/** `runs` audits per shape, one after another on the same seeded store (a figure each). */
export async function runAuditBench(url: string, runs = 1): Promise<AuditBenchFigure[]> {
  await runMigrations(url);
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  const figures: AuditBenchFigure[] = [];
  try {
    for (const [shape, sessions, eachEvents] of [['1,000 × 200', 1000, 200], ['100 × 10,000', 100, 10_000]] as const) {
      await pool.query('TRUNCATE events, streams, session_summaries, session_snapshots, session_index, idempotency_keys');
      const seeded = Date.now();
      await seedAuditStore(pool, 'audit-bench', sessions, eachEvents);
      await pool.query('VACUUM ANALYZE');
      console.error(`audit bench: seeded ${shape} in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
      for (let run = 0; run < runs; run += 1) {
        const r = await auditInChild(url);
        figures.push({ shape, sessions, ...r, eventsPerSecond: Math.round(r.events / r.seconds) });
      }
    }
  } finally {
    await pool.end();
  }
  return figures;
}

/** Events of a database whose content is sealed, of all its events: what the store holds, read back. */
export async function sealedShare(url: string): Promise<{ sealed: number; events: number }> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const { rows } = await pool.query<{ sealed: number; events: number }>(
      `SELECT count(*) FILTER (WHERE data->>'${SEALED_FIELD}' IS NOT NULL)::int AS sealed, count(*)::int AS events FROM events`,
    );
    return rows[0]!;
  } finally {
    await pool.end();
  }
}

export interface AuditEncryptionFigures {
  readonly sealed: AuditBenchFigure[];
  readonly plain: AuditBenchFigure[];
  /** What each store holds, read back after seeding. */
  readonly sealedStore: { sealed: number; events: number };
  readonly plainStore: { sealed: number; events: number };
}

/**
 * The audit's cost of encryption (issue 30): the same sessions (the 1,000 × 200 shape) seeded sealed into one
 * database (a keyring with a fresh master key, its key table in `<database>_keys`, as the service keeps it) and
 * plain into another, then `runs` times both audited back to back, each in a fresh child process, the order
 * alternating (sealed first on even runs), so the host's drift between runs falls on both alike.
 */
export async function runAuditEncryptionBench(sealedUrl: string, plainUrl: string, runs = 1, progress: (line: string) => void = () => undefined): Promise<AuditEncryptionFigures> {
  const [shape, sessions, eachEvents] = ['1,000 × 200', 1000, 200] as const;
  const masterKey = newMasterKeyText();
  for (const [url, sealed] of [[sealedUrl, true], [plainUrl, false]] as const) {
    await runMigrations(url);
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    const keyring = sealed ? await openKeyring(keystoreUrlFor(url), MasterKeys.parse(masterKey)) : null;
    try {
      const seeded = Date.now();
      await seedAuditStore(pool, 'audit-enc', sessions, eachEvents, keyring);
      await pool.query('VACUUM ANALYZE');
      progress(`  audit encryption: seeded ${shape} ${sealed ? 'sealed' : 'plain'} in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
    } finally {
      await pool.end();
      await keyring?.close();
    }
  }
  const out = { sealed: [] as AuditBenchFigure[], plain: [] as AuditBenchFigure[] };
  for (let run = 0; run < runs; run += 1) {
    const order = run % 2 === 0 ? (['sealed', 'plain'] as const) : (['plain', 'sealed'] as const);
    for (const which of order) {
      const r = which === 'sealed' ? await auditInChild(sealedUrl, masterKey) : await auditInChild(plainUrl);
      out[which][run] = { shape, sessions, ...r, eventsPerSecond: Math.round(r.events / r.seconds) };
    }
  }
  return { ...out, sealedStore: await sealedShare(sealedUrl), plainStore: await sealedShare(plainUrl) };
}

async function main(): Promise<void> {
  const cluster = process.env.DATABASE_URL ? null : await startBenchCluster();
  try {
    const url = process.env.DATABASE_URL ?? (await (cluster as NonNullable<typeof cluster>).createDatabase('audit_bench'));
    const figures = await runAuditBench(url, Number(process.env.BENCH_AUDIT_RUNS ?? 1));
    console.log('| store | events | seconds | events/s | audit CPU s | events per CPU s | peak RSS (MB) | mismatches |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const f of figures) {
      console.log(`| ${f.shape} | ${f.events} | ${f.seconds.toFixed(2)} | ${f.eventsPerSecond} | ${f.cpuSeconds.toFixed(2)} | ${Math.round(f.events / f.cpuSeconds)} | ${f.peakRssMb.toFixed(0)} | ${f.mismatches} |`);
    }
  } finally {
    cluster?.stop();
  }
}

runAsScript(import.meta.url, () => main());
