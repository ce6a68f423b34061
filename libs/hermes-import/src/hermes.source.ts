import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Skipped } from './hermes-import.report.js';
import { JOURNAL_PATH } from './run-journal.reader.js';
import type { StateDbInput } from './state-db.reader.js';

/** One input file: its name as the report shows it, and its content (text, or JSON an upload sent parsed). */
export interface SourceFile {
  readonly name: string;
  read(): Promise<unknown>;
}

/** The hermes-webui data to import, from a directory tree or from an upload. */
export interface HermesSource {
  /** `<sessionId>.json` sidecar files. */
  readonly sidecars: readonly SourceFile[];
  readonly stateDb: { readonly item: string; readonly input: StateDbInput } | null;
  /** Run journals named `<sessionId>/<runId>.jsonl`. */
  readonly journals: readonly SourceFile[];
  /** Inputs left out while listing. */
  readonly skipped: readonly Skipped[];
}

/** A session file: `*.json` not starting with `_` (hermes keeps its indexes and journals under `_` names). */
export const isSidecarName = (name: string): boolean => name.endsWith('.json') && !name.startsWith('_');

const fileOf = (path: string, name: string): SourceFile => ({ name, read: () => readFile(path, 'utf8') });

async function journalFiles(dir: string): Promise<{ files: SourceFile[]; skipped: Skipped[] }> {
  const files: SourceFile[] = [];
  const skipped: Skipped[] = [];
  for (const session of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!session.isDirectory()) continue;
    for (const run of (await readdir(join(dir, session.name))).sort()) {
      const name = `${session.name}/${run}`;
      if (JOURNAL_PATH.test(name)) files.push(fileOf(join(dir, session.name, run), name));
      else if (run.endsWith('.jsonl')) skipped.push({ item: name, reason: 'session or run id outside [A-Za-z0-9_.-]; journal not imported' });
    }
  }
  return { files, skipped };
}

/**
 * The files of a hermes-webui install: sidecars in `sessions`, run journals in `journals` (default
 * `<sessions>/_run_journal`, when it exists), the agent's `state.db` when given (`stateDbName`: how the report names
 * it). Unreadable directories throw.
 */
export async function directorySource(options: { sessions: string; stateDb?: string; stateDbName?: string; journals?: string }): Promise<HermesSource> {
  const names = (await readdir(options.sessions, { withFileTypes: true })).filter((e) => e.isFile() && isSidecarName(e.name)).map((e) => e.name);
  const sidecars = names.sort().map((name) => fileOf(join(options.sessions, name), name));
  const journalDir = options.journals ?? join(options.sessions, '_run_journal');
  const journals = options.journals !== undefined || existsSync(journalDir) ? await journalFiles(journalDir) : { files: [], skipped: [] };
  const stateDb = options.stateDb === undefined ? null : { item: options.stateDbName ?? options.stateDb, input: { path: options.stateDb } };
  return { sidecars, stateDb, journals: journals.files, skipped: journals.skipped };
}

/** What `POST /v1/import/hermes` carries: the same files, their contents inline (state.db as bytes). */
export interface HermesUpload {
  readonly sessions: readonly { readonly file: string; readonly content: unknown }[];
  readonly stateDb?: Buffer;
  readonly journals?: readonly { readonly file: string; readonly content: string }[];
}

export function uploadSource(upload: HermesUpload): HermesSource {
  const inline = (name: string, content: unknown): SourceFile => ({ name, read: async () => content });
  const skipped: Skipped[] = [];
  const sidecars = upload.sessions.filter(({ file }) => isSidecarName(file)).map(({ file, content }) => inline(file, content));
  const journals: SourceFile[] = [];
  for (const { file, content } of upload.journals ?? []) {
    if (JOURNAL_PATH.test(file)) journals.push(inline(file, content));
    else skipped.push({ item: file, reason: 'not <sessionId>/<runId>.jsonl with ids of [A-Za-z0-9_.-]; journal not imported' });
  }
  const stateDb = upload.stateDb === undefined ? null : { item: 'state.db', input: { bytes: upload.stateDb } };
  return { sidecars, stateDb, journals, skipped };
}
