import { parseArgs } from 'node:util';
import { ID_PATTERN } from '#domain';
import { CliError, EXIT } from './cli-io.js';

export type CommandName = 'replay' | 'export' | 'import' | 'import-hermes' | 'audit' | 'rebuild' | 'rotate-keys';
export const COMMANDS: readonly CommandName[] = ['replay', 'export', 'import', 'import-hermes', 'audit', 'rebuild', 'rotate-keys'];

interface CommandSpec {
  readonly positionals: readonly string[];
  readonly options: Readonly<Record<string, { readonly type: 'string' | 'boolean' }>>;
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
  'rotate-keys': { positionals: [], options: {} },
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
  | { readonly kind: 'rebuild'; readonly name: string }
  | { readonly kind: 'rotate-keys' };

/** One line: what is wrong, and the help to read. */
const usage = (message: string, command?: CommandName): CliError =>
  new CliError(EXIT.usage, `${message} (see 'chronicle ${command ? `${command} ` : ''}--help')`);

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

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/** `--help` or `-h` before a `--` terminator asks for the command's help, whatever else the line holds. */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/**
 * What node:util's strict parse refused, said in one line: the offending token is found by a lenient parse
 * of the same arguments, so the wording does not depend on Node's messages.
 */
function refusal(args: string[], command: CommandName, spec: CommandSpec): CliError {
  const { tokens } = parseArgs({ args, options: { ...spec.options, ...HELP }, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = token.name === 'help' ? HELP.help : spec.options[token.name];
    if (!option) return usage(`unknown option '${token.rawName}' for '${command}'`, command);
    if (option.type === 'boolean' && token.value !== undefined) return usage(`option '${token.rawName}' takes no value`, command);
    if (option.type === 'string' && (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))) {
      return usage(`option '${token.rawName}' needs a value`, command);
    }
  }
  return usage(`cannot parse the arguments of '${command}'`, command);
}

/**
 * `chronicle <command> [positionals] [--option value|--option=value|--flag]`, parsed by node:util's parseArgs
 * (strict: an unknown option or a missing value is refused); throws a one-line usage CliError (exit 2).
 */
export function parseCliArgs(argv: readonly string[]): ParsedArgs {
  const [first, ...rest] = argv;
  if (first === undefined) throw usage('missing command');
  if (first === '--help' || first === '-h') return { kind: 'help' };
  if (first === 'help') return rest[0] === undefined ? { kind: 'help' } : { kind: 'help', command: commandOf(rest[0]) };
  if (first.startsWith('-')) throw usage(`unknown option '${first}': the command comes first (chronicle <command> [options])`);
  const command = commandOf(first);
  if (asksForHelp(rest)) return { kind: 'help', command };
  const spec = SPECS[command];
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: spec.options, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_')) throw error;
    throw refusal(rest, command, spec);
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) throw usage(`option '--${token.name}' given twice`, command);
    seen.add(token.name);
  }
  const { positionals } = parsed;
  if (positionals.length < spec.positionals.length) throw usage(`missing ${spec.positionals[positionals.length]}`, command);
  if (positionals.length > spec.positionals.length) {
    const wanted = spec.positionals.length === 0 ? 'no arguments' : spec.positionals.join(' ');
    throw usage(`unexpected argument '${positionals[spec.positionals.length]}' ('${command}' takes ${wanted})`, command);
  }
  return build(command, positionals, parsed.values as Record<string, string | boolean | undefined>);
}

function commandOf(name: string): CommandName {
  if ((COMMANDS as readonly string[]).includes(name)) return name as CommandName;
  throw usage(`unknown command '${name}' (commands: ${COMMANDS.join(', ')})`);
}

function build(command: CommandName, positionals: string[], options: Record<string, string | boolean | undefined>): ParsedArgs {
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
    case 'rotate-keys':
      return { kind: command };
  }
}
