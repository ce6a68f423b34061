import type { LoggerService } from '@nestjs/common';
import pino from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** The service's one root pino logger: JSON lines on stdout. */
export function createLogger(level: pino.LevelWithSilent): pino.Logger {
  return pino({ level, name: 'chronicle' });
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
