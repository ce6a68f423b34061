import { fieldErrorsOf, type StateRow, stateRowSchema } from '#domain';
import { type HermesImportReport, ReportBuilder, type Skipped } from './hermes-import.report.js';
import { planSidecar, type SidecarPlan } from './hermes-sidecar.mapper.js';
import { type ImportDeps, importSession } from './hermes-session.importer.js';
import type { SessionInput } from './hermes-session.planner.js';
import type { HermesSource, SourceFile } from './hermes.source.js';
import { JOURNAL_PATH, parseRunJournal } from './run-journal.reader.js';
import { readStateDb } from './state-db.reader.js';

export interface HermesImportOptions {
  readonly dryRun: boolean;
  /** Told after each session: how many are done of how many. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Sessions in flight at once (their appends share group commits). */
  readonly concurrency?: number;
}

const reasonOf = (error: unknown): string => `cannot be read (${(error as Error).message})`;

async function readSidecar(file: SourceFile): Promise<{ plan: SidecarPlan } | { problem: string }> {
  let content: unknown;
  try {
    content = await file.read();
  } catch (error) {
    return { problem: reasonOf(error) };
  }
  return planSidecar(file.name, content);
}

/** The state.db rows by session, each row checked against the contract (a bad row is skipped, not its session). */
async function stateRowsOf(source: HermesSource, report: ReportBuilder): Promise<Map<string, StateRow[]>> {
  if (source.stateDb === null) return new Map();
  let bySession: Map<string, StateRow[]>;
  try {
    bySession = await readStateDb(source.stateDb.input);
  } catch (error) {
    report.skip({ item: source.stateDb.item, reason: `${(error as Error).message}; no agent-store rows imported` });
    return new Map();
  }
  for (const [sessionId, rows] of bySession) {
    bySession.set(sessionId, rows.filter((row) => {
      const parsed = stateRowSchema.safeParse(row);
      if (parsed.success) return true;
      const problem = fieldErrorsOf(parsed.error).map((e) => `${e.path}: ${e.message}`).join('; ');
      report.skip({ item: `${source.stateDb?.item} row ${row.rowId}`, reason: `${problem}; row left out` });
      return false;
    }));
  }
  return bySession;
}

async function journalsOf(files: readonly SourceFile[], skipped: Skipped[]): Promise<SessionInput['journals']> {
  const journals = [];
  for (const file of files) {
    let text: unknown;
    try {
      text = await file.read();
    } catch (error) {
      skipped.push({ item: file.name, reason: `${reasonOf(error)}; journal not imported` });
      continue;
    }
    const parsed = parseRunJournal(file.name, String(text));
    skipped.push(...parsed.skipped);
    journals.push({ runId: (JOURNAL_PATH.exec(file.name) as RegExpExecArray)[2], events: parsed.events });
  }
  return journals;
}

/**
 * `chronicle import-hermes` and `POST /v1/import/hermes`: reads the sources, then imports session by session.
 * Files are read twice (once for the links between sessions, once to import), so memory holds the sessions in
 * flight, not the whole install. A bad input is reported and the rest goes on.
 */
export async function importHermes(deps: ImportDeps, source: HermesSource, options: HermesImportOptions): Promise<HermesImportReport> {
  const report = new ReportBuilder(options.dryRun);
  report.skip(...source.skipped);
  const sessions = new Map<string, SourceFile>();
  const children = new Map<string, { sessionId: string; at: number }>();
  const parents = new Set<string>();
  for (const file of source.sidecars) {
    report.sessionRead();
    const read = await readSidecar(file);
    if ('problem' in read) {
      report.sessionRefused({ item: file.name, reason: `${read.problem}; session not imported` });
      continue;
    }
    const { sessionId, parentSessionId, createdAt, compressionParent } = read.plan;
    sessions.set(sessionId, file);
    if (compressionParent) parents.add(sessionId);
    const known = parentSessionId === null ? undefined : children.get(parentSessionId);
    if (parentSessionId !== null && (known === undefined || createdAt < known.at)) children.set(parentSessionId, { sessionId, at: createdAt });
  }
  const stateRows = await stateRowsOf(source, report);
  for (const [sessionId, rows] of stateRows) {
    if (!sessions.has(sessionId)) report.skip({ item: `${source.stateDb?.item} session ${sessionId}`, reason: `${rows.length} row(s) without a sidecar file; not imported` });
  }
  const journals = new Map<string, SourceFile[]>();
  for (const file of source.journals) {
    const sessionId = (JOURNAL_PATH.exec(file.name) as RegExpExecArray)[1];
    if (!sessions.has(sessionId)) report.skip({ item: file.name, reason: 'no sidecar file for its session; journal not imported' });
    else journals.set(sessionId, [...(journals.get(sessionId) ?? []), file]);
  }
  for (const parent of parents) {
    if (!children.has(parent)) report.skip({ item: sessions.get(parent)?.name ?? parent, reason: 'a compression parent whose child is not among the sidecars; imported, not archived' });
  }
  const queue = [...sessions.keys()];
  let done = 0;
  const worker = async () => {
    for (let sessionId = queue.shift(); sessionId !== undefined; sessionId = queue.shift()) {
      const file = sessions.get(sessionId) as SourceFile;
      const read = await readSidecar(file);
      if ('problem' in read) report.sessionRefused({ item: file.name, reason: `${read.problem}; session not imported` });
      else {
        const skipped: Skipped[] = [...read.plan.skipped];
        const runs = await journalsOf(journals.get(sessionId) ?? [], skipped);
        const input: SessionInput = { sidecar: read.plan, stateRows: stateRows.get(sessionId) ?? [], journals: runs, child: parents.has(sessionId) ? (children.get(sessionId) ?? null) : null };
        const outcome = await importSession(deps, input, options.dryRun);
        report.skip(...skipped, ...outcome.skipped);
        if (outcome.ok) report.sessionDone(outcome.types);
        else report.sessionRefused({ item: file.name, reason: outcome.reason });
      }
      options.onProgress?.(++done, sessions.size);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
  return report.build();
}
