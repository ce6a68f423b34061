import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { directorySource, importHermes } from '#hermes-import';
import { SessionIndexProjector } from '#read-models';
import { CliError, EXIT, errorMessage, type CliIo, write } from './cli-io.js';
import type { CliDatabase } from './database.connector.js';
import { renderHermesReport } from './hermes-report.renderer.js';
import { createProgress } from './progress.reporter.js';

export interface ImportHermesOptions {
  readonly sessions: string;
  readonly stateDb?: string;
  readonly journals?: string;
  readonly dryRun: boolean;
  readonly json: boolean;
}

/**
 * A path an option names, checked before anything is written: a mistyped one is a usage error, not a run that
 * imports without it (a state.db that exists but is not SQLite is reported in the run's `skipped` instead).
 */
async function existing(io: CliIo, path: string, option: string, kind: 'directory' | 'file'): Promise<string> {
  const full = resolve(io.cwd ?? process.cwd(), path);
  const info = await stat(full).catch((error: unknown) => {
    throw new CliError(EXIT.usage, `chronicle: cannot read ${option} ${path}: ${errorMessage(error)}`);
  });
  if (kind === 'directory' ? !info.isDirectory() : !info.isFile()) throw new CliError(EXIT.usage, `chronicle: ${option} ${path} is not a ${kind}`);
  return full;
}

/**
 * `chronicle import-hermes --sessions DIR [--state-db PATH] [--journals DIR] [--dry-run] [--json]`: turns a
 * hermes-webui install into events through the service's write path (libs/hermes-import), one append per
 * session, and prints the report (`--json`: what POST /v1/import/hermes answers). Exit 1 when a session was
 * refused; bad lines and rows left out are reported without failing the run.
 */
export async function importHermesCommand(db: CliDatabase, io: CliIo, options: ImportHermesOptions): Promise<number> {
  const sessions = await existing(io, options.sessions, '--sessions', 'directory');
  const journals = options.journals === undefined ? undefined : await existing(io, options.journals, '--journals', 'directory');
  const stateDb = options.stateDb === undefined ? undefined : await existing(io, options.stateDb, '--state-db', 'file');
  const stateDbName = options.stateDb;
  const source = await directorySource({ sessions, stateDb, stateDbName, journals }).catch((error: unknown) => {
    throw new CliError(EXIT.usage, `chronicle: cannot list ${options.sessions}: ${errorMessage(error)}`);
  });
  const progress = createProgress({ stream: io.stderr, tty: io.progressTty, label: 'import-hermes', unit: 'sessions', total: source.sidecars.length, now: io.now });
  const report = await importHermes({ store: db.store, views: db.views, writer: db.writer }, source, {
    dryRun: options.dryRun,
    onProgress: (_done, total) => progress.tick(1, total),
  });
  progress.done(`(${report.events.total} event(s)${options.dryRun ? ' planned, nothing written' : ''})`);
  if (!options.dryRun && report.events.total > 0) await new SessionIndexProjector(db.pool, db.store, db.views, { keys: db.keyring }).catchUp();
  await write(io.stdout, options.json ? `${JSON.stringify(report)}\n` : renderHermesReport(report));
  return report.sessions.refused > 0 ? EXIT.mismatch : EXIT.ok;
}
