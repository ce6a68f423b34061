import type { LoadResult } from './http-load.js';

/** Answer checks of an HTTP figure, summed over its runs. */
interface Check {
  answers: number;
  non2xx: number;
  errors: number;
  first?: string;
}

/**
 * The figures of a bench invocation: per-run samples by figure id (NaN where a run failed), the answer checks
 * of every HTTP figure, and the errors of the phases that failed. `npm run bench` keeps one for all its phases; `npm run bench:citus` its own.
 * Methods are bound (arrow properties), so they can be passed around and destructured.
 */
export class Samples {
  private readonly values = new Map<string, number[]>();
  private readonly checks = new Map<string, Check>();
  /** The phases that could not run, one line each (the table and RESULTS.md list them). */
  readonly errors: string[] = [];

  constructor(
    readonly runs: number,
    private readonly progress: (message: string) => void,
  ) {}

  /** Runs a phase; when it fails, its error is kept as one line and the bench goes on. */
  readonly step = async (name: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      // One line: the first lines of a child's stack are enough.
      const message = `${name}: ${text.split('\n').map((line) => line.trim()).filter(Boolean).slice(0, 3).join(' ⏎ ').slice(0, 600)}`;
      this.errors.push(message);
      this.progress(`ERROR ${message}`);
    }
  };

  readonly record = (id: string, round: number, value: number): void => {
    const list = this.values.get(id) ?? Array.from({ length: this.runs }, () => Number.NaN);
    list[round] = value;
    this.values.set(id, list);
  };

  readonly runsOf = (id: string): number[] => this.values.get(id) ?? Array.from({ length: this.runs }, () => Number.NaN);

  /** Each run's figure ÷ its baseline of the same round. */
  readonly ratioRuns = (id: string, baseline: string): number[] => this.runsOf(id).map((v, i) => v / this.runsOf(baseline)[i]!);

  readonly check = (id: string, result: LoadResult): void => {
    const c = this.checks.get(id) ?? { answers: 0, non2xx: 0, errors: 0 };
    c.answers += result.answers;
    c.non2xx += result.non2xxTotal;
    c.errors += result.errors;
    c.first ??= result.firstNon2xx ?? result.firstError;
    this.checks.set(id, c);
  };

  readonly checkText = (id: string): string => {
    const c = this.checks.get(id);
    if (!c) return '';
    const text = `${c.answers.toLocaleString('en-US')} answers, ${c.non2xx} non-2xx, ${c.errors} errors`;
    return c.first ? `${text}; first: ${c.first.replace(/\s+/g, ' ').slice(0, 120)}` : text;
  };
}
