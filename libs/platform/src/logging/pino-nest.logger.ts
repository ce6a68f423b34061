import type { LoggerService } from '@nestjs/common';
import pino from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** Log bytes buffered before a write, and the longest a line waits in the buffer. */
const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 250;

/**
 * The service's one root pino logger: JSON lines on stdout, written in blocks of ~4 kB rather than one
 * write per line (a write costs more than the line, and the service logs a line per request: bench/README.md).
 * A line waits at most 250 ms; pino flushes what is buffered when the process exits.
 */
export function createLogger(level: pino.LevelWithSilent): pino.Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  setInterval(() => {
    try {
      destination.flush();
    } catch {
      // Closed at shutdown: nothing left to flush.
    }
  }, LOG_FLUSH_MS).unref();
  return pino({ level, name: 'chronicle' }, destination);
}

const looksLikeStack = (value: unknown): value is string => typeof value === 'string' && /\n\s+at /.test(value);

/**
 * Nest's Logger calls as pino JSON lines. Nest passes the logger's context as the last argument and, for
 * `error`, a stack before it; a message that is an Error or an object is logged as pino logs it.
 * Writes straight to the root logger: no child per request, and nothing is built when the level is off.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly root: pino.Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.root.isLevelEnabled(level)) return;
    const last = params.at(-1);
    const context = typeof last === 'string' && !looksLikeStack(last) ? last : undefined;
    const stack = params.find(looksLikeStack);
    const fields: Record<string, unknown> = {};
    if (context) fields.context = context;
    if (stack) fields.stack = stack;
    if (message instanceof Error) {
      this.root[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.root[level]({ ...fields, ...(message as Record<string, unknown>) });
    } else {
      this.root[level](fields, String(message));
    }
  }
}
