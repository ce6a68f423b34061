import {
  evolveAll,
  initialSessionState,
  projectSession,
  render,
  type MessageRow,
  type SessionEvent,
  type StateRow,
} from '../libs/domain/src/index.js';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchMerge } from './merge.bench.js';

/**
 * Fold benchmark. Run by hand after a build: `node dist/bench/fold.bench.js`. A realistic long session of
 * 100,000 events: turns of a submission, a streamed journal (tokens, a tool call and its completion, `done`),
 * a settle, and the agent store's copy of the turn (workspace-prefixed prompt, sub-second timestamps) observed
 * after it; every 40th turn is interrupted and its journal arrives after the decision.
 * `npm run bench` (bench/run.ts) calls `runFoldBench` for its fold and merge figures.
 */
const TARGET_EVENTS = 100_000;
const TOKENS_PER_TURN = 300;
const START = 1_780_000_000;
const RUNS = 7;

export function buildSession(): SessionEvent[] {
  const events: SessionEvent[] = [{ type: 'SessionStarted', data: { sessionId: 'bench', title: 'Bench', parentSessionId: null, createdAt: START } }];
  let rowId = 0;
  for (let turn = 0; events.length < TARGET_EVENTS; turn += 1) {
    const runId = `run-${turn}`;
    const t0 = START + turn * 600;
    const text = `question ${turn}: please look at item ${turn} and explain`;
    events.push({ type: 'UserMessageSubmitted', data: { runId, text, attachments: [], source: null, submittedAt: t0 } });
    const interrupted = turn % 40 === 39;
    const journal: SessionEvent[] = [];
    let seq = 0;
    const add = (event: string, payload: Record<string, unknown>, at: number): void => {
      seq += 1;
      journal.push({ type: 'JournalEventRecorded', data: { runId, seq, event, payload, createdAt: at } });
    };
    add('tool', { name: 'search', preview: `item ${turn}`, args: { q: `item ${turn}` } }, t0 + 1);
    add('tool_complete', { name: 'search', duration: 0.4, is_error: false }, t0 + 2);
    for (let i = 0; i < TOKENS_PER_TURN; i += 1) add('token', { text: `w${i} ` }, t0 + 3 + i / 100);
    const answer = Array.from({ length: TOKENS_PER_TURN }, (_, i) => `w${i}`).join(' ');
    if (interrupted) {
      events.push({ type: 'TurnInterrupted', data: { runId, cause: 'process_restart', detectedAt: t0 + 60, evidence: { now: t0 + 60 } } });
      events.push(...journal);
      continue;
    }
    add('done', {}, t0 + 10);
    events.push(...journal);
    const rows: MessageRow[] = [
      { role: 'user', content: text, timestamp: t0 },
      { role: 'assistant', content: answer, timestamp: t0 + 10 },
    ];
    events.push({ type: 'TurnSettled', data: { runId, rows, settledAt: t0 + 10 } });
    const stateRows: StateRow[] = [
      { role: 'user', content: `[Workspace::v1: /w]\n${text}`, timestamp: t0 + 0.25, rowId: ++rowId, active: true },
      { role: 'assistant', content: answer, timestamp: t0 + 10.5, rowId: ++rowId, active: true, apiContent: answer },
    ];
    events.push({ type: 'StateRowsObserved', data: { rows: stateRows, observedAt: t0 + 11 } });
  }
  return events.slice(0, TARGET_EVENTS);
}

function time<T>(fn: () => T): { ms: number; result: T } {
  const start = process.hrtime.bigint();
  const result = fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export interface FoldBenchResult {
  /** `projectSession` over the 100,000-event session, events per second (median of the runs). */
  readonly foldEventsPerSecond: number;
  /** The 10k+10k merge reference scenario, median ms (from merge.bench.ts). */
  readonly mergeMs: number;
}

/** Builds the session, times fold, render and projectSession (median of RUNS) and the merge; `log` gets the detail. */
export function runFoldBench(log: (...args: unknown[]) => void = () => undefined, table: (rows: object[]) => void = () => undefined): FoldBenchResult {
  const events = buildSession();
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
  const folds: number[] = [];
  const renders: number[] = [];
  const projections: number[] = [];
  let displayRows = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const fold = time(() => evolveAll(initialSessionState(), events));
    folds.push(fold.ms);
    renders.push(time(() => render(fold.result)).ms);
    const projection = time(() => projectSession(events));
    projections.push(projection.ms);
    displayRows = projection.result.display.length;
  }
  const perSecond = (ms: number): string => Math.round(events.length / (ms / 1000)).toLocaleString('en-US');
  log(`events: ${events.length} (${[...counts].map(([type, n]) => `${type} ${n}`).join(', ')}); display rows: ${displayRows}`);
  table([
    { step: 'evolveAll (fold only)', 'median ms': median(folds).toFixed(1), 'events/s': perSecond(median(folds)) },
    { step: 'render (merge, markers)', 'median ms': median(renders).toFixed(1), 'events/s': '' },
    { step: 'projectSession', 'median ms': median(projections).toFixed(1), 'events/s': perSecond(median(projections)) },
  ]);
  const merge = benchMerge();
  return { foldEventsPerSecond: Math.round(events.length / (median(projections) / 1000)), mergeMs: merge.ms };
}

/**
 * The fold bench in a process of its own (`node fold.bench.js --json`), as `npm run bench:fold` runs it: its
 * figures are the fold's, not those of whatever heap the calling process grew before (run.ts has served
 * thousands of HTTP loads, imports and audits by then, and in that heap the fold and the merge run slower:
 * bench/README.md, "The fold and the merge").
 */
export function runFoldBenchInChild(): Promise<FoldBenchResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as FoldBenchResult) : reject(new Error(`fold bench child exited ${code}`))));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--json')) {
    process.stdout.write(JSON.stringify(runFoldBench()));
  } else {
    const result = runFoldBench(console.log, console.table);
    // The two lines scripts read: keep them last.
    console.log(`fold events/s: ${result.foldEventsPerSecond}`);
    console.log(`merge 10k+10k ms: ${result.mergeMs.toFixed(1)}`);
  }
}
