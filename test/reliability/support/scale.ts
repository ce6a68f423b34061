/**
 * The reliability suites run at a small size in `npm test` (CI) and at a large one under `npm run soak`
 * (CHRONICLE_SOAK=1). Each suite reads its figures from here, and reports what it did through `report`.
 */
export const SOAK = process.env.CHRONICLE_SOAK === '1';

export const SCALE = SOAK
  ? { clients: 8, runsPerClient: 25, eventsPerRun: 80, batch: 10, crashes: 5, outages: 3, staleTurns: 200, fuzzRuns: 300 }
  : { clients: 4, runsPerClient: 4, eventsPerRun: 20, batch: 5, crashes: 2, outages: 1, staleTurns: 100, fuzzRuns: 25 };

/** Jest timeout of a reliability test at this size. */
export const SUITE_TIMEOUT_MS = SOAK ? 900_000 : 120_000;

/** One line of figures on stderr (jest keeps stdout for itself), e.g. for the README's reliability section. */
export function report(suite: string, figures: Record<string, number>): void {
  process.stderr.write(`reliability ${suite} ${SOAK ? 'soak' : 'ci'}: ${JSON.stringify(figures)}\n`);
}
