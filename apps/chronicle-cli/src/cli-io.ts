import type { Writable } from 'node:stream';

/** Exit codes of every command: 0 ok, 1 mismatches found or a refused import, 2 usage or connection error. */
export const EXIT = { ok: 0, mismatch: 1, usage: 2 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An expected failure: its message is printed as is (no stack) and the process exits with `code`. */
export class CliError extends Error {
  constructor(
    readonly code: ExitCode,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Everything a command touches outside the database, injected so tests run commands in-process. */
export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: NodeJS.ProcessEnv;
  /** stderr is a terminal: progress is a one-line `\r` bar instead of plain lines. */
  readonly progressTty: boolean;
  /** Current working directory for relative paths (defaults to process.cwd()). */
  readonly cwd?: string;
  /** Milliseconds clock (progress rate and ETA); injectable for tests. */
  readonly now?: () => number;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    progressTty: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
  };
}

/** Writes honouring backpressure, so `export` over millions of events keeps constant memory. */
export function write(stream: Writable, text: string): Promise<void> | void {
  if (stream.write(text)) return;
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      stream.off('error', onError);
      resolve();
    };
    const onError = (error: Error) => {
      stream.off('drain', onDrain);
      reject(error);
    };
    stream.once('drain', onDrain);
    stream.once('error', onError);
  });
}

export function writeLine(stream: Writable, text: string): Promise<void> | void {
  return write(stream, `${text}\n`);
}

export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));
