import type { Writable } from 'node:stream';

export interface ProgressOptions {
  readonly stream: Writable;
  /** One `\r`-rewritten line (a terminal) or plain lines at most every `plainEveryMs`. */
  readonly tty: boolean;
  readonly label: string;
  readonly unit: string;
  readonly total?: number;
  readonly now?: () => number;
  readonly plainEveryMs?: number;
}

export interface Progress {
  /** Counts `n` more units, optionally replacing the total. */
  tick(n?: number, total?: number): void;
  /** Final line: the count, the rate and the elapsed time. */
  done(suffix?: string): void;
  /** Erases the bar (a terminal) before other output shares the screen; the next tick redraws it. */
  clear(): void;
  readonly count: number;
}

const WIDTH = 24;

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond)) return '-';
  return perSecond >= 1000 ? `${(perSecond / 1000).toFixed(1)}k` : perSecond.toFixed(perSecond < 10 ? 1 : 0);
}

/** Progress of long work on stderr: a bar with count, rate and ETA on a terminal, plain lines otherwise. */
export function createProgress(options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const started = now();
  const every = options.plainEveryMs ?? 2000;
  let total = options.total;
  let count = 0;
  let lastPrint = started;
  let barShown = false;

  const line = (): string => {
    const seconds = Math.max((now() - started) / 1000, 1e-3);
    const rate = count / seconds;
    const known = total !== undefined && total > 0;
    const of = known ? `/${total}` : '';
    const eta = known && rate > 0 ? ` ETA ${formatDuration(((total as number) - count) / rate)}` : '';
    if (!options.tty) return `${options.label}: ${count}${of} ${options.unit} (${formatRate(rate)}/s${eta})`;
    const ratio = known ? Math.min(1, count / (total as number)) : 0;
    const filled = Math.round(ratio * WIDTH);
    const bar = known ? `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ` : '';
    return `${options.label} ${bar}${count}${of} ${options.unit} ${formatRate(rate)}/s${eta}`;
  };

  const print = (force: boolean) => {
    const t = now();
    if (options.tty) {
      if (!force && t - lastPrint < 100 && barShown) return;
      options.stream.write(`\r\x1b[2K${line()}`);
      barShown = true;
    } else if (force || t - lastPrint >= every) {
      options.stream.write(`${line()}\n`);
    } else return;
    lastPrint = t;
  };

  return {
    get count() {
      return count;
    },
    tick(n = 1, newTotal?: number) {
      count += n;
      if (newTotal !== undefined) total = newTotal;
      print(false);
    },
    clear() {
      if (options.tty && barShown) options.stream.write('\r\x1b[2K');
      barShown = false;
    },
    done(suffix?: string) {
      const seconds = (now() - started) / 1000;
      const summary = `${options.label}: ${count} ${options.unit} in ${seconds.toFixed(1)}s (${formatRate(count / Math.max(seconds, 1e-3))}/s)`;
      options.stream.write(`${options.tty && barShown ? '\r\x1b[2K' : ''}${summary}${suffix ? ` ${suffix}` : ''}\n`);
    },
  };
}
