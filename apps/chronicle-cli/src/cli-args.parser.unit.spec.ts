import { parseCliArgs as parseArgs } from './cli-args.parser.js';
import { CliError } from './cli-io.js';

function usageError(argv: string[]): string {
  try {
    parseArgs(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe(2);
    return (error as CliError).message;
  }
  throw new Error(`parsed: ${argv.join(' ')}`);
}

describe('parseCliArgs (node:util parseArgs, strict)', () => {
  it('parses every command with its options, in either --name value or --name=value form', () => {
    expect(parseArgs(['replay', 'demo'])).toEqual({ kind: 'replay', sessionId: 'demo', view: 'display', json: false });
    expect(parseArgs(['replay', '--at', '12', 'demo', '--view=context', '--json'])).toEqual({
      kind: 'replay',
      sessionId: 'demo',
      at: 12,
      view: 'context',
      json: true,
    });
    expect(parseArgs(['export'])).toEqual({ kind: 'export' });
    expect(parseArgs(['export', '--session', 's-1'])).toEqual({ kind: 'export', sessionId: 's-1' });
    expect(parseArgs(['import', 'file.ndjson'])).toEqual({ kind: 'import', file: 'file.ndjson' });
    expect(parseArgs(['import', '--', '--odd-name.ndjson'])).toEqual({ kind: 'import', file: '--odd-name.ndjson' });
    expect(parseArgs(['audit'])).toEqual({ kind: 'audit', json: false });
    expect(parseArgs(['audit', '--session=a:b', '--json'])).toEqual({ kind: 'audit', sessionId: 'a:b', json: true });
    expect(parseArgs(['audit', '--since', '2026-01-31T08:00:00Z', '--json'])).toEqual({ kind: 'audit', since: new Date('2026-01-31T08:00:00Z'), json: true });
    expect(parseArgs(['audit', '--since=2026-01-31'])).toEqual({ kind: 'audit', since: new Date('2026-01-31T00:00:00Z'), json: false });
    expect(parseArgs(['rebuild', 'session_index'])).toEqual({ kind: 'rebuild', name: 'session_index' });
    expect(parseArgs(['import-hermes', '--sessions', 'dir'])).toEqual({ kind: 'import-hermes', sessions: 'dir', dryRun: false, json: false });
    expect(parseArgs(['import-hermes', '--sessions=d', '--state-db', 's.db', '--journals', 'j', '--dry-run', '--json'])).toEqual({
      kind: 'import-hermes',
      sessions: 'd',
      stateDb: 's.db',
      journals: 'j',
      dryRun: true,
      json: true,
    });
  });

  it('needs --sessions for import-hermes', () => {
    expect(usageError(['import-hermes', '--state-db', 's.db'])).toBe("missing --sessions DIR (see 'chronicle import-hermes --help')");
  });

  it('answers help for --help, -h and help, globally or per command', () => {
    expect(parseArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseArgs(['-h'])).toEqual({ kind: 'help' });
    expect(parseArgs(['help', 'import'])).toEqual({ kind: 'help', command: 'import' });
    expect(parseArgs(['replay', '--help'])).toEqual({ kind: 'help', command: 'replay' });
    expect(parseArgs(['export', '--session', 'x', '-h'])).toEqual({ kind: 'help', command: 'export' });
    expect(parseArgs(['replay', '--bogus', '--help'])).toEqual({ kind: 'help', command: 'replay' });
    expect(parseArgs(['help'])).toEqual({ kind: 'help' });
  });

  it('reads what follows -- as arguments, not options (help included)', () => {
    expect(parseArgs(['import', '--', '--help'])).toEqual({ kind: 'import', file: '--help' });
    expect(parseArgs(['import', '-'])).toEqual({ kind: 'import', file: '-' });
  });

  it('rejects bad usage with exit 2 and a message naming the problem and the help to read', () => {
    expect(usageError([])).toContain('missing command');
    expect(usageError(['audit', '--since', 'yesterday'])).toContain("--since must be an ISO 8601 date or date-time with an offset (2026-01-31, 2026-01-31T08:00:00Z), got 'yesterday'");
    expect(usageError(['audit', '--since', '2026-01-31T08:00:00'])).toContain('--since must be an ISO 8601');
    expect(usageError(['audit', '--since', '2026-02-30'])).toContain('--since must be an ISO 8601');
    expect(usageError(['audit', '--since', '2026-01-31', '--session', 's'])).toContain('--since and --session cannot be combined');
    expect(usageError(['replay'])).toBe("missing ID (see 'chronicle replay --help')");
    expect(usageError(['nope'])).toContain("unknown command 'nope' (commands: replay, export, import, import-hermes, audit, rebuild, rotate-keys)");
    expect(usageError(['replay', 'demo', '--at', '0'])).toContain("--at must be a positive integer, got '0'");
    expect(usageError(['replay', 'demo', '--at', '1.5'])).toContain('--at must be a positive integer');
    expect(usageError(['replay', 'demo', '--at'])).toContain("option '--at' needs a value");
    expect(usageError(['replay', 'demo', '--view', 'raw'])).toContain('--view must be display or context');
    expect(usageError(['replay', 'demo', '--json=yes'])).toContain("option '--json' takes no value");
    expect(usageError(['replay', 'demo', '--json', '--json'])).toContain("option '--json' given twice");
    expect(usageError(['replay', 'not ok'])).toContain("invalid session id 'not ok'");
    expect(usageError(['export', '--at', '3'])).toContain("unknown option '--at' for 'export'");
    expect(usageError(['export', '-x'])).toContain("unknown option '-x'");
    expect(usageError(['export', '-xyz'])).toContain("unknown option '-x'");
    expect(usageError(['replay', 'demo', '--at', '--json'])).toContain("option '--at' needs a value");
    expect(usageError(['replay', 'demo', '--at', '-5'])).toContain("option '--at' needs a value");
    expect(usageError(['export', '--help=yes'])).toContain("option '--help' takes no value");
    expect(usageError(['--session', 'x'])).toContain("unknown option '--session': the command comes first");
    expect(usageError(['export', 'extra'])).toContain("unexpected argument 'extra' ('export' takes no arguments)");
    expect(usageError(['import', 'a', 'b'])).toContain("unexpected argument 'b' ('import' takes FILE)");
    expect(usageError(['rebuild'])).toContain('missing NAME');
  });

  it('says an unknown option in one line naming the option, the command and its help', () => {
    expect(usageError(['export', '--sesion', 's'])).toBe("unknown option '--sesion' for 'export' (see 'chronicle export --help')");
    for (const argv of [['export', '--at', '3'], ['audit', '--json=1'], ['replay', 'x', '--at'], ['import']]) {
      expect(usageError(argv)).not.toContain('\n');
    }
  });
});
