import { ID_PATTERN } from '#domain';
import { CliError, EXIT } from './cli-io.js';

export type CommandName = 'replay' | 'export' | 'import' | 'import-hermes' | 'audit' | 'rebuild';
export const COMMANDS: readonly CommandName[] = ['replay', 'export', 'import', 'import-hermes', 'audit', 'rebuild'];

interface OptionSpec {
  readonly type: 'string' | 'boolean';
}

interface CommandSpec {
  readonly positionals: readonly string[];
  readonly options: Readonly<Record<string, OptionSpec>>;
}

const SPECS: Readonly<Record<CommandName, CommandSpec>> = {
  replay: { positionals: ['ID'], options: { at: { type: 'string' }, view: { type: 'string' }, json: { type: 'boolean' } } },
  export: { positionals: [], options: { session: { type: 'string' } } },
  import: { positionals: ['FILE'], options: {} },
  'import-hermes': {
    positionals: [],
    options: { sessions: { type: 'string' }, 'state-db': { type: 'string' }, journals: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
  },
  audit: { positionals: [], options: { session: { type: 'string' }, since: { type: 'string' }, json: { type: 'boolean' } } },
  rebuild: { positionals: ['NAME'], options: {} },
};

export type ParsedArgs =
  | { readonly kind: 'help'; readonly command?: CommandName }
  | { readonly kind: 'replay'; readonly sessionId: string; readonly at?: number; readonly view: 'display' | 'context'; readonly json: boolean }
  | { readonly kind: 'export'; readonly sessionId?: string }
  | { readonly kind: 'import'; readonly file: string }
  | {
      readonly kind: 'import-hermes';
      readonly sessions: string;
      readonly stateDb?: string;
      readonly journals?: string;
      readonly dryRun: boolean;
      readonly json: boolean;
    }
  | { readonly kind: 'audit'; readonly sessionId?: string; readonly since?: Date; readonly json: boolean }
  | { readonly kind: 'rebuild'; readonly name: string };

const usage = (message: string, command?: CommandName): CliError =>
  new CliError(EXIT.usage, `${message}\nRun 'chronicle ${command ? `${command} ` : ''}--help' for usage.`);

function sessionIdOf(value: string, command: CommandName): string {
  if (!ID_PATTERN.test(value)) throw usage(`invalid session id '${value}' (1-128 of A-Z a-z 0-9 _ . : -)`, command);
  return value;
}

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** An ISO 8601 date (`2026-01-31`, midnight UTC) or date-time with an offset. */
function sinceOf(value: string, command: CommandName): Date {
  const date = new Date(value);
  const [y, m, d] = value.slice(0, 10).split('-').map(Number);
  // Date rolls 2026-02-30 over to March: the calendar day must exist as written.
  const real = new Date(Date.UTC(y, m - 1, d)).getUTCDate() === d;
  if (!ISO.test(value) || Number.isNaN(date.getTime()) || !real) {
    throw usage(`--since must be an ISO 8601 date or date-time with an offset (2026-01-31, 2026-01-31T08:00:00Z), got '${value}'`, command);
  }
  return date;
}

/** `chronicle <command> [positionals] [--option value|--option=value|--flag]`; throws a usage CliError (exit 2). */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    if (first === 'help' && rest[0] !== undefined) return { kind: 'help', command: commandOf(rest[0]) };
    if (first === undefined) throw usage('missing command');
    return { kind: 'help' };
  }
  const command = commandOf(first);
  const spec = SPECS[command];
  const positionals: string[] = [];
  const options: Record<string, string | boolean> = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--help' || arg === '-h') return { kind: 'help', command };
    if (arg === '--') {
      positionals.push(...rest.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '-') {
      if (arg.startsWith('-') && arg !== '-') throw usage(`unknown option '${arg}'`, command);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const option = spec.options[name];
    if (!option) throw usage(`unknown option '--${name}' for '${command}'`, command);
    if (name in options) throw usage(`option '--${name}' given twice`, command);
    if (option.type === 'boolean') {
      if (eq >= 0) throw usage(`option '--${name}' takes no value`, command);
      options[name] = true;
    } else if (eq >= 0) {
      options[name] = arg.slice(eq + 1);
    } else {
      const value = rest[i + 1];
      if (value === undefined || value.startsWith('--')) throw usage(`option '--${name}' needs a value`, command);
      options[name] = value;
      i++;
    }
  }
  if (positionals.length !== spec.positionals.length) {
    const wanted = spec.positionals.length === 0 ? 'no arguments' : spec.positionals.join(' ');
    if (positionals.length < spec.positionals.length) throw usage(`missing ${spec.positionals[positionals.length]}`, command);
    throw usage(`unexpected argument '${positionals[spec.positionals.length]}' ('${command}' takes ${wanted})`, command);
  }
  return build(command, positionals, options);
}

function commandOf(name: string): CommandName {
  if ((COMMANDS as readonly string[]).includes(name)) return name as CommandName;
  throw usage(`unknown command '${name}' (commands: ${COMMANDS.join(', ')})`);
}

function build(command: CommandName, positionals: string[], options: Record<string, string | boolean>): ParsedArgs {
  const str = (name: string) => options[name] as string | undefined;
  const session = str('session') === undefined ? undefined : sessionIdOf(str('session') as string, command);
  switch (command) {
    case 'replay': {
      const at = str('at');
      if (at !== undefined && !/^[1-9][0-9]{0,15}$/.test(at)) throw usage(`--at must be a positive integer, got '${at}'`, command);
      const view = str('view') ?? 'display';
      if (view !== 'display' && view !== 'context') throw usage(`--view must be display or context, got '${view}'`, command);
      const chosen: 'display' | 'context' = view;
      const base = { kind: command, sessionId: sessionIdOf(positionals[0], command), view: chosen, json: options.json === true };
      return at === undefined ? base : { ...base, at: Number(at) };
    }
    case 'export':
      return session === undefined ? { kind: command } : { kind: command, sessionId: session };
    case 'import':
      return { kind: command, file: positionals[0] };
    case 'import-hermes': {
      const sessions = str('sessions');
      if (sessions === undefined) throw usage('missing --sessions DIR', command);
      const paths = { ...(str('state-db') === undefined ? {} : { stateDb: str('state-db') }), ...(str('journals') === undefined ? {} : { journals: str('journals') }) };
      return { kind: command, sessions, ...paths, dryRun: options['dry-run'] === true, json: options.json === true };
    }
    case 'audit': {
      const since = str('since');
      if (since !== undefined && session !== undefined) throw usage('--since and --session cannot be combined', command);
      const base = { kind: command, json: options.json === true };
      if (since !== undefined) return { ...base, since: sinceOf(since, command) };
      return session === undefined ? base : { ...base, sessionId: session };
    }
    case 'rebuild':
      return { kind: command, name: positionals[0] };
  }
}
