import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { directorySource, importHermes } from '../libs/hermes-import/src/index.js';
import { runMigrations, startEmbeddedDatabase } from '../libs/platform/src/index.js';
import { createSessionEventStore, SessionViews, SnapshotStore } from '../libs/read-models/src/index.js';
import { SessionWriter } from '../libs/session-commands/src/index.js';
import { hermesLayout, type HermesLayout, type HermesStateRow, writeJournal, writeSidecar, writeStateDb } from '../test/support/hermes-webui.fixture.js';
import { runAsScript } from './run-as-script.js';

/**
 * Import benchmark: `npm run bench:import [-- SESSIONS]` (default 500). Writes SESSIONS hermes-webui sessions
 * (8 sidecar rows, the same turns in state.db with sub-second times and the workspace prefix, a 40-event run
 * journal; every 10th a pending crashed turn) into a temp folder, imports them with `chronicle import-hermes`'s
 * capability into DATABASE_URL (unset: a throwaway embedded PostgreSQL) and prints sessions/s and events/s.
 * It imports twice: the second run appends nothing and measures the re-run.
 */
const T0 = 1_790_000_000;

export interface ImportBenchResult {
  readonly sessions: number;
  readonly events: number;
  readonly seconds: number;
  readonly sessionsPerSecond: number;
  readonly eventsPerSecond: number;
  readonly rerunSeconds: number;
}

export async function writeBenchInstall(root: string, sessions: number): Promise<HermesLayout> {
  const layout = hermesLayout(root);
  const stateRows: HermesStateRow[] = [];
  for (let s = 0; s < sessions; s++) {
    const sessionId = `bench-${s}`;
    const t = T0 + s * 100;
    const rows = Array.from({ length: 8 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `turn ${i} of ${sessionId}: ${'lorem ipsum '.repeat(8)}`, timestamp: t + i * 5 }));
    const crashed = s % 10 === 0;
    writeSidecar(layout, sessionId, rows, crashed ? { active_stream_id: `run-${s}`, pending_user_message: 'and then?', pending_started_at: t + 60 } : {});
    rows.forEach((row, i) => stateRows.push({ id: s * 10 + i + 1, sessionId, role: row.role, content: `${row.role === 'user' ? '[Workspace::v1: /srv/app]\n' : ''}${row.content}`, timestamp: row.timestamp + 0.25 }));
    const tokens = Array.from({ length: 39 }, (_, i) => ({ event: 'token', payload: { text: `word${i} ` }, createdAt: t + 60 + i * 0.1 }));
    writeJournal(layout, sessionId, `run-${s}`, crashed ? tokens : [...tokens, { event: 'done', createdAt: t + 65 }]);
  }
  await writeStateDb(layout.stateDb, stateRows);
  return layout;
}

export async function runImportBench(databaseUrl: string, sessions: number): Promise<ImportBenchResult> {
  const root = mkdtempSync(join(tmpdir(), 'chronicle-import-bench-'));
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 8, pipeline: true });
  try {
    const layout = await writeBenchInstall(root, sessions);
    const store = await createSessionEventStore(pool);
    const views = new SessionViews(store, new SnapshotStore(pool), { snapshotEvery: 200, cacheBytes: 16 * 1024 * 1024 });
    const deps = { store, views, writer: new SessionWriter(store, views) };
    const run = async () => {
      const started = performance.now();
      const report = await importHermes(deps, await directorySource({ sessions: layout.sessions, stateDb: layout.stateDb }), { dryRun: false });
      return { report, seconds: (performance.now() - started) / 1000 };
    };
    const first = await run();
    const again = await run();
    if (again.report.events.total !== 0) throw new Error(`the re-run appended ${again.report.events.total} event(s)`);
    const { imported } = first.report.sessions;
    const events = first.report.events.total;
    return { sessions: imported, events, seconds: first.seconds, sessionsPerSecond: imported / first.seconds, eventsPerSecond: events / first.seconds, rerunSeconds: again.seconds };
  } finally {
    await pool.end();
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const sessions = Number(process.argv[2] ?? 500);
  let url = process.env.DATABASE_URL;
  let stop = async (): Promise<void> => undefined;
  if (!url) {
    const dataDir = mkdtempSync(join(tmpdir(), 'chronicle-import-bench-db-'));
    chmodSync(dataDir, 0o755);
    const db = await startEmbeddedDatabase({ dataDir, persistent: false });
    url = db.url;
    stop = () => db.stop();
  }
  try {
    await runMigrations(url);
    const r = await runImportBench(url, sessions);
    console.log(`| sessions | events | seconds | sessions/s | events/s | re-run (appends 0) |`);
    console.log(`|---:|---:|---:|---:|---:|---:|`);
    console.log(`| ${r.sessions} | ${r.events} | ${r.seconds.toFixed(2)} | ${r.sessionsPerSecond.toFixed(0)} | ${r.eventsPerSecond.toFixed(0)} | ${r.rerunSeconds.toFixed(2)} s |`);
  } finally {
    await stop();
  }
}

runAsScript(import.meta.url, () => main());
