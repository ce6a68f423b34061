import type { LoadResult } from './http-load.js';

/** Answer checks of an HTTP figure, summed over its runs. */
interface Check {
  answers: number;
  non2xx: number;
  errors: number;
  first?: string;
}

/**
 * The figures of a bench invocation: per-run samples by figure id (NaN where a run failed), and the answer
 * checks of every HTTP figure. `npm run bench` keeps one for all its phases; `npm run bench:citus` its own.
 * Methods are bound (arrow properties), so they can be passed around and destructured.
 */
export class Samples {
  private readonly values = new Map<string, number[]>();
  private readonly checks = new Map<string, Check>();

  constructor(readonly runs: number) {}

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
