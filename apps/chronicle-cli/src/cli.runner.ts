import { auditCommand } from './audit.command.js';
import { parseCliArgs, type ParsedArgs } from './cli-args.parser.js';
import { commandHelp, mainHelp } from './cli-help.text.js';
import { CliError, EXIT, type CliIo, write } from './cli-io.js';
import { type CliDatabase, openDatabase } from './database.connector.js';
import { exportCommand } from './export.command.js';
import { importCommand } from './import.command.js';
import { importHermesCommand } from './import-hermes.command.js';
import { rebuildCommand } from './rebuild.command.js';
import { replayCommand } from './replay.command.js';
import { rotateKeysCommand } from './rotate-keys.command.js';

export interface RunOptions {
  /** Opens the database (tests may hand one in); default: the service's configuration from `io.env`. */
  readonly open?: (io: CliIo) => Promise<CliDatabase>;
}

type DatabaseArgs = Exclude<ParsedArgs, { kind: 'help' }>;

async function dispatch(db: CliDatabase, io: CliIo, args: DatabaseArgs): Promise<number> {
  switch (args.kind) {
    case 'replay':
      return replayCommand(db, io, args);
    case 'export':
      return exportCommand(db, io, args);
    case 'import':
      return importCommand(db, io, args);
    case 'import-hermes':
      return importHermesCommand(db, io, args);
    case 'audit':
      return auditCommand(db, io, args);
    case 'rebuild':
      return rebuildCommand(db, io, args);
    case 'rotate-keys':
      return rotateKeysCommand(db, io);
  }
}

/**
 * Runs one command and answers its exit code (0 ok, 1 mismatch or refused import, 2 usage or connection).
 * Never throws: expected failures print their message, unexpected ones their stack, on stderr.
 */
export async function runCli(argv: readonly string[], io: CliIo, options: RunOptions = {}): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    await write(io.stderr, argv.length === 0 ? `${mainHelp()}\n` : `chronicle: ${error.message}\n`);
    return error.code;
  }
  if (args.kind === 'help') {
    await write(io.stdout, args.command ? commandHelp(args.command) : mainHelp());
    return EXIT.ok;
  }
  let db: CliDatabase | undefined;
  try {
    db = await (options.open ?? openDatabase)(io);
    return await dispatch(db, io, args);
  } catch (error) {
    if (error instanceof CliError) {
      await write(io.stderr, `${error.message}\n`);
      return error.code;
    }
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    await write(io.stderr, `chronicle ${args.kind} failed: ${text}\n`);
    return EXIT.usage;
  } finally {
    await db?.close().catch(() => undefined);
  }
}
