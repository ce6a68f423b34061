import fc from 'fast-check';
import {
  canonicalJson,
  decide,
  evolve,
  initialSessionState,
  projectSession,
  render,
  renderTranscript,
  type SessionEvent,
  type SessionState,
} from '../index.js';
import type { JournalEventRecorded } from '../events/session.events.js';
import { sessionHistoryArb } from '../testing/session-event.arbitrary.js';
import { abandoned, assistant, interrupted, observed, recorded, started, stateRow, submitted, user } from '../testing/session.fixtures.js';

/**
 * Determinism of the fold (issue 6 item 5): a view depends on the events, not on how they were folded or in
 * which order a run's journal reached the service.
 */
const hashes = (events: readonly SessionEvent[]) => {
  const view = projectSession(events);
  return { display: renderTranscript(view, 'display').hash, context: renderTranscript(view, 'context').hash };
};

describe('folding event by event, with the state round-tripped through JSON as snapshots do', () => {
  it('renders the same canonical JSON and hashes as one full replay', () => {
    fc.assert(
      fc.property(sessionHistoryArb, fc.integer({ min: 1, max: 5 }), (events, every) => {
        let state: SessionState = initialSessionState();
        events.forEach((event, index) => {
          state = evolve(state, event);
          if ((index + 1) % every === 0) state = JSON.parse(JSON.stringify(state)) as SessionState;
        });
        const incremental = render(state);
        const replayed = projectSession(events);
        expect(canonicalJson(incremental)).toBe(canonicalJson(replayed));
        for (const name of ['display', 'context'] as const) {
          expect(renderTranscript(incremental, name).hash).toBe(renderTranscript(replayed, name).hash);
        }
      }),
      { numRuns: 300 },
    );
  });
});

// ── Journal arrival order ────────────────────────────────────────────────────────────────────────────────

const RUN = 'run-1';
const T0 = 2_000;

/** The body of one journal event; seq and time are given by its position in the run. */
const journalBodyArb: fc.Arbitrary<{ event: string; payload: Record<string, unknown> }> = fc.oneof(
  fc.constantFrom('Checking', ' the repo', ' first.', 'Done.', '').map((text) => ({ event: 'token', payload: { text } })),
  fc.constantFrom('Interim note', 'Still working').map((text) => ({ event: 'interim_assistant', payload: { text, already_streamed: false } })),
  fc.constantFrom('thinking it over', '').map((text) => ({ event: 'reasoning', payload: { text } })),
  fc.constantFrom('terminal', 'search').map((name) => ({ event: 'tool', payload: { name, preview: `${name} preview`, args: { q: name } } })),
  fc.constantFrom('terminal', 'search').map((name) => ({ event: 'tool_complete', payload: { name, duration: 0.5, is_error: false } })),
  fc.constant({ event: 'metering', payload: { tokens: 12 } }),
);

const terminalArb = fc.option(
  fc.constantFrom(
    { event: 'done', payload: {} },
    { event: 'stream_end', payload: {} },
    { event: 'cancel', payload: {} },
    { event: 'error', payload: { type: 'interrupted' } },
  ),
);

const journalArb: fc.Arbitrary<JournalEventRecorded[]> = fc
  .tuple(fc.array(journalBodyArb, { minLength: 1, maxLength: 8 }), terminalArb)
  .map(([bodies, terminal]) =>
    [...bodies, ...(terminal ? [terminal] : [])].map((body, index) => ({
      type: 'JournalEventRecorded' as const,
      data: { runId: RUN, seq: index + 1, event: body.event, payload: body.payload, createdAt: T0 + 1 + index * 0.25 },
    })),
  );

/** What else happens to the session after the submission, in this order. */
const afterSubmissionArb: fc.Arbitrary<SessionEvent[]> = fc
  .record({
    agentRows: fc.boolean(),
    interrupt: fc.boolean(),
    abandon: fc.boolean(),
    laterTurn: fc.boolean(),
  })
  .map(({ agentRows, interrupt, abandon, laterTurn }) => [
    ...(agentRows ? [observed([stateRow(1, user('earlier question', T0 - 20)), stateRow(2, assistant('earlier answer', T0 - 19))], T0 + 30)] : []),
    ...(interrupt ? [interrupted(RUN, T0 + 40, 'process_restart')] : []),
    ...(interrupt && abandon ? [abandoned(RUN, T0 + 40 + 86_400)] : []),
    ...(laterTurn ? [recorded(user('a later prompt', T0 + 90_000), assistant('a later answer', T0 + 90_001))] : []),
  ]);

const before: SessionEvent[] = [
  started('s1', T0 - 100),
  recorded(user('earlier question', T0 - 20), assistant('earlier answer', T0 - 19)),
  submitted(RUN, 'the question', T0),
];

/** Folds `events`, sending every journal delivery through the decider as the ingestion route does. */
function ingest(events: readonly SessionEvent[]): SessionEvent[] {
  let state = initialSessionState();
  const stored: SessionEvent[] = [];
  for (const event of events) {
    let recordedNow: readonly SessionEvent[] = [event];
    if (event.type === 'JournalEventRecorded') {
      const { runId, ...delivery } = event.data;
      recordedNow = decide({ type: 'RecordJournalEvents', data: { runId, events: [delivery] } }, state).events;
    }
    for (const item of recordedNow) {
      state = evolve(state, item);
      stored.push(item);
    }
  }
  return stored;
}

/** A random arrival: every journal event delivered once or more, in any order, anywhere after the submission. */
const arrivalArb = fc
  .tuple(journalArb, afterSubmissionArb)
  .chain(([journal, after]) =>
    fc
      .tuple(
        fc.array(fc.nat({ max: journal.length - 1 }), { maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: after.length }), { minLength: journal.length + 4, maxLength: journal.length + 4 }),
        fc.array(fc.nat(), { minLength: journal.length + 4, maxLength: journal.length + 4 }),
      )
      .map(([repeats, slots, ranks]) => {
        const deliveries = [...journal, ...repeats.map((index) => journal[index]!)];
        const order = deliveries.map((delivery, i) => ({ delivery, rank: ranks[i]!, i })).sort((a, b) => a.rank - b.rank || a.i - b.i);
        // Slot k = just before after[k]; slot after.length = at the very end.
        const arrival: SessionEvent[] = [...before];
        for (let k = 0; k <= after.length; k += 1) {
          arrival.push(...order.filter((_, i) => slots[i] === k).map(({ delivery }) => delivery));
          if (k < after.length) arrival.push(after[k]!);
        }
        return { journal, after, arrival };
      }),
  );

describe('the journal events of one run', () => {
  it('yield the same display and context hashes in any arrival order, with repeated deliveries dropped by the decider', () => {
    fc.assert(
      fc.property(arrivalArb, ({ journal, after, arrival }) => {
        const inOrder = [...before, ...journal, ...after];
        const stored = ingest(arrival);
        expect(stored.filter((event) => event.type === 'JournalEventRecorded')).toHaveLength(journal.length);
        expect(hashes(stored)).toEqual(hashes(inOrder));
      }),
      { numRuns: 400 },
    );
  });

  it('drop a repeated (runId, seq) in the decider, so only first deliveries are stored', () => {
    const first = ingest([...before]);
    const event: JournalEventRecorded = { type: 'JournalEventRecorded', data: { runId: RUN, seq: 1, event: 'token', payload: { text: 'x' }, createdAt: T0 + 1 } };
    const once = ingest([...first, event]);
    expect(ingest([...once, event])).toEqual(once);
  });
});
