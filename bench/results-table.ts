/**
 * The one results table `npm run bench` prints and writes to bench/RESULTS.md. A row holds the per-run values
 * of a figure (NaN = that run failed), optionally the per-run ratios to its baseline (each ratio computed
 * within one round, baseline and figure measured minutes apart at most), and a target checked on the medians.
 */
export interface Ratio {
  readonly runs: readonly number[];
  /** What the figure is divided by, e.g. "raw 1-row INSERT, 16 conn". */
  readonly of: string;
}

export interface Target {
  readonly text: string;
  /** Given the median value and the median ratio (NaN without a ratio). */
  readonly pass: (value: number, ratio: number) => boolean;
}

export interface ResultRow {
  readonly figure: string;
  readonly unit: string;
  readonly runs: readonly number[];
  readonly ratio?: Ratio;
  readonly target?: Target;
  /** Answer checks for HTTP rows, or an error. */
  readonly checks?: string;
}

export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const mid = Math.floor(finite.length / 2);
  return finite.length % 2 === 1 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
}

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

export interface RenderedRow {
  readonly cells: readonly string[];
  readonly verdict: 'pass' | 'FAIL' | 'n/a' | '';
}

const HEADER = ['Figure', 'Median', 'Unit', 'Runs', 'Ratio (median of runs)', 'Target', 'Result', 'Checks'];

export function renderRow(row: ResultRow): RenderedRow {
  const value = median(row.runs);
  const ratio = row.ratio ? median(row.ratio.runs) : Number.NaN;
  let verdict: RenderedRow['verdict'] = '';
  if (row.target) {
    const measured = Number.isFinite(value) && (!row.ratio || Number.isFinite(ratio));
    verdict = measured ? (row.target.pass(value, ratio) ? 'pass' : 'FAIL') : 'n/a';
  }
  return {
    verdict,
    cells: [
      row.figure,
      formatNumber(value),
      row.unit,
      row.runs.map(formatNumber).join(' / '),
      row.ratio ? `${Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : 'n/a'} ${row.ratio.of}` : '',
      row.target?.text ?? '',
      verdict,
      row.checks ?? '',
    ],
  };
}

/** A Markdown pipe table, padded so it also reads as plain text in a terminal. */
export function renderTable(rows: readonly ResultRow[]): string {
  const body = rows.map((row) => renderRow(row).cells.map((cell) => cell.replace(/\|/g, '\\|')));
  const widths = HEADER.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(HEADER), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

export function verdicts(rows: readonly ResultRow[]): { pass: number; fail: number; missing: number } {
  const all = rows.map((row) => renderRow(row).verdict);
  return {
    pass: all.filter((v) => v === 'pass').length,
    fail: all.filter((v) => v === 'FAIL').length,
    missing: all.filter((v) => v === 'n/a').length,
  };
}
