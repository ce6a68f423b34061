import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalJson } from '../canonical/canonical-json.js';
import type { SessionEvent } from '../events/session.events.js';
import { sessionHistoryArb } from '../testing/session-event.arbitrary.js';
import { evolve, evolveAll } from './session.evolve.js';
import { projectSession, renderTranscript } from './session.render.js';
import { render } from './session.render.js';
import { initialSessionState, type SessionState } from '../session-state/session.state.js';
import { assistant, interrupted, observed, recorded, started, stateRow, submitted, tokens, user } from '../testing/session.fixtures.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

const sample: SessionEvent[] = [
  started(),
  recorded(user('hi', 1001), assistant('hello', 1002, { apiContent: 'hello!' })),
  observed([stateRow(1, user('hi', 1001)), stateRow(2, assistant('hello', 1002), { apiContent: 'hello!' })], 1003),
  submitted('r1', 'question', 1010),
  ...tokens('r1', 1, ['Partial ', 'answer'], 1011),
  interrupted('r1', 1100),
];

describe('projecting a session', () => {
  it('gives identical canonical bytes for equal events, whatever it projected in between (no state kept across folds)', () => {
    const first = canonicalJson(projectSession(sample));
    projectSession([...sample, recorded(user('another session', 2000))]);
    expect(canonicalJson(projectSession(structuredClone(sample)))).toBe(first);
    expect(first).not.toBe(canonicalJson(projectSession(sample.slice(0, -1))));
  });

  it('never mutates deep-frozen events or states', () => {
    const events = deepFreeze(structuredClone(sample));
    let state: SessionState = deepFreeze(initialSessionState());
    for (const event of events) state = deepFreeze(evolve(state, event));
    expect(canonicalJson(render(state))).toBe(canonicalJson(projectSession(events)));
  });

  it('folds to the same view with evolve one event at a time as in one pass', () => {
    const stepwise = sample.reduce(evolve, initialSessionState());
    expect(canonicalJson(render(stepwise))).toBe(canonicalJson(projectSession(sample)));
  });

  it('never shows apiContent in the display view but keeps it in the context', () => {
    const view = projectSession(sample);
    expect(view.display.some((row) => 'apiContent' in row)).toBe(false);
    expect(view.context.some((row) => row.apiContent === 'hello!')).toBe(true);
  });

  it('hashes an empty transcript as the chain seed followed by the empty tool card list', () => {
    const view = projectSession([started()]);
    const seed = createHash('sha256').update('chronicle transcript hash v2').digest('hex');
    expect(renderTranscript(view, 'display')).toEqual({
      messages: [],
      toolCards: [],
      hash: createHash('sha256').update(`${seed}[]`).digest('hex'),
      links: [],
    });
  });

  it('ignores an unknown event type', () => {
    const unknown = { type: 'SomethingNew', data: { x: 1 } } as unknown as SessionEvent;
    expect(canonicalJson(projectSession([...sample, unknown]))).toBe(canonicalJson(projectSession(sample)));
  });
});

describe('a state snapshot', () => {
  it('folded on renders exactly what one fold renders (any split, any history)', () => {
    fc.assert(
      fc.property(sessionHistoryArb, fc.nat(), (events, cut) => {
        const k = cut % (events.length + 1);
        const snapshot = JSON.parse(JSON.stringify(evolveAll(initialSessionState(), events.slice(0, k)))) as SessionState;
        const resumed = render(evolveAll(snapshot, events.slice(k)));
        expect(canonicalJson(resumed)).toBe(canonicalJson(projectSession(events)));
      }),
      { numRuns: 300 },
    );
  });

  it('survives any history deep-frozen without throwing', () => {
    fc.assert(
      fc.property(sessionHistoryArb, (events) => {
        const frozen = deepFreeze(events);
        expect(() => frozen.reduce(evolve, deepFreeze(initialSessionState()))).not.toThrow();
      }),
      { numRuns: 100 },
    );
  });
});
