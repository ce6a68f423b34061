import { mergeSessionMessages, type MessageRow } from '../libs/domain/src/index.js';

/**
 * Merge benchmark. Run by hand after a build: `node dist/bench/merge.bench.js`. The reference
 * scenario: 10,000 sidecar rows that the agent store replays with sub-second timestamps and the
 * `[Workspace::v1: /w]\n` prefix on user rows; the merge must return the sidecar unchanged.
 */

const ROWS = 10_000;
const START = 1_780_000_000;
const RUNS = 15;

interface Scenario {
  readonly name: string;
  readonly sidecar: readonly MessageRow[];
  readonly state: readonly MessageRow[];
  readonly expectedLength: number;
}

function sidecarRows(count: number, step = 1): MessageRow[] {
  return Array.from({ length: count }, (_, i): MessageRow => {
    const role = i % 2 === 0 ? 'user' : 'assistant';
    return { role, content: `${role} turn ${i}: some words about item ${i}`, timestamp: START + i * step };
  });
}

/**
 * `{ ...row, ...fields }` for an agent-store copy of a row. Not the spread: on Node 20 a spread that adds a key
 * the row lacks (`rowId`) gives every copy a hidden class of its own, so the merge would be timed on megamorphic
 * property reads that no real input causes (rows parsed from JSON or by zod share one hidden class per shape):
 * about 3x the merge's own time on the same rows. Object.assign builds the same keys, in the same order.
 */
const agentCopy = (row: MessageRow, fields: Partial<MessageRow>): MessageRow => Object.assign({}, row, fields);

function replayScenario(): Scenario {
  const sidecar = sidecarRows(ROWS);
  const state = sidecar.map((row, i): MessageRow =>
    agentCopy(row, {
      content: row.role === 'user' ? `[Workspace::v1: /w]\n${String(row.content)}` : row.content,
      timestamp: START + 40_000 + i + 0.137,
      rowId: i + 1,
    }),
  );
  return { name: 'full replay, prefixed users', sidecar, state, expectedLength: ROWS };
}

/** Every agent row is a user prompt the sidecar lost, due at a slot inside the transcript (R5). */
function rescueScenario(): Scenario {
  const sidecar = sidecarRows(ROWS, 2);
  const state = Array.from({ length: ROWS }, (_, i): MessageRow => ({
    role: 'user',
    content: `lost prompt ${i}`,
    timestamp: START + 1 + i * 2,
  }));
  return { name: 'chronological rescue of every row', sidecar, state, expectedLength: 2 * ROWS };
}

/**
 * R1 with provider bytes: the agent store re-stamps every row in another second and carries
 * `apiContent` on user/assistant rows, a third of which are tool-call-only (empty text). No api
 * pre-pass tier can pair them, so the agent rows stay distinct (§2.2) and are appended; the
 * content-only tier meets thousands of rows sharing the empty text (quadratic before the indexes).
 */
function providerBytesScenario(): Scenario {
  const sidecar = Array.from({ length: ROWS }, (_, i): MessageRow => {
    const ts = START + i;
    if (i % 3 === 0) return { role: 'user', content: `user turn ${i}: some words about item ${i}`, timestamp: ts };
    if (i % 3 === 1) return { role: 'assistant', content: '', toolCalls: [{ id: `c${i}`, type: 'function', function: { name: 'read' } }], timestamp: ts };
    return { role: 'tool', content: `result ${i}`, toolCallId: `c${i - 1}`, timestamp: ts };
  });
  const state = sidecar.map((row, i): MessageRow =>
    agentCopy(row, {
      content: row.role === 'user' ? `[Workspace::v1: /w]\n${String(row.content)}` : row.content,
      timestamp: START + 40_000 + i + 0.137,
      rowId: i + 1,
      ...(row.role === 'tool' ? {} : { apiContent: `bytes ${i}` }),
    }),
  );
  const withBytes = state.filter((row) => row.apiContent !== undefined).length;
  return { name: 'restamped replay with provider bytes', sidecar, state, expectedLength: ROWS + withBytes };
}

function time(scenario: Scenario): { first: number; median: number; min: number } {
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const merged = mergeSessionMessages(scenario.sidecar, scenario.state);
    samples.push(performance.now() - started);
    if (merged.length !== scenario.expectedLength) {
      throw new Error(`${scenario.name}: ${merged.length} rows, expected ${scenario.expectedLength}`);
    }
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return { first: samples[0]!, median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]! };
}

/** Median wall time of the reference scenario (10k + 10k replay), after the first (cold) run. */
export function benchMerge(): { ms: number } {
  return { ms: time(replayScenario()).median };
}

function main(): void {
  const rows = [replayScenario(), rescueScenario(), providerBytesScenario()].map((scenario) => {
    const { first, median, min } = time(scenario);
    return {
      scenario: scenario.name,
      sidecar: scenario.sidecar.length,
      state: scenario.state.length,
      'first ms': first.toFixed(1),
      'median ms': median.toFixed(1),
      'min ms': min.toFixed(1),
    };
  });
  console.table(rows);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
