import type { SessionEvent } from '../events/session.events.js';
import { evolveAll } from './session.evolve.js';
import { projectSession } from './session.render.js';
import { initialSessionState } from '../session-state/session.state.js';
import { assistant, observed, recorded, settled, started, stateRow, submitted, truncated, user } from '../testing/session.fixtures.js';

const contents = (events: SessionEvent[]): unknown[] => projectSession(events).display.map((row) => row.content);
const stateOf = (events: SessionEvent[]) => evolveAll(initialSessionState(), events);

describe('a submitted turn', () => {
  const given = [started(), recorded(user('hi', 1001), assistant('hello', 1002)), submitted('r1', 'question', 1010, ['a.png'])];

  it('shows the submitted prompt last, as the pending turn', () => {
    const view = projectSession(given);
    expect(view.display.at(-1)).toEqual({ role: 'user', content: 'question', timestamp: 1010, attachments: ['a.png'] });
    expect(view.pendingTurn).toEqual({ runId: 'r1', text: 'question', attachments: ['a.png'], source: null, submittedAt: 1010 });
    expect(view.summary.status).toBe('pending');
  });

  it('keeps the pending prompt out of the model context', () => {
    expect(projectSession(given).context.map((row) => row.content)).toEqual(['hi', 'hello']);
  });

  it('is replaced by the settled rows when the turn settles', () => {
    const view = projectSession([...given, settled('r1', [user('question', 1010), assistant('answer', 1012)], 1013)]);
    expect(view.display.map((row) => row.content)).toEqual(['hi', 'hello', 'question', 'answer']);
    expect(view.pendingTurn).toBeNull();
    expect(view.summary.status).toBe('active');
  });
});

describe('while a turn is pending', () => {
  const agentRows = [stateRow(1, user('[Workspace::v1: /w]\nquestion', 1010.4)), stateRow(2, assistant('answer', 1011.7))];

  it('holds back agent-store rows newer than the submission', () => {
    expect(contents([started(), submitted('r1', 'question', 1010), observed(agentRows, 1012)])).toEqual(['question']);
  });

  it('still merges agent-store rows stamped before the submission', () => {
    const older = [stateRow(1, user('hi', 1001)), stateRow(2, user('gateway prompt', 1005))];
    expect(contents([started(), recorded(user('hi', 1001)), observed(older, 1006), submitted('r1', 'question', 1010)])).toEqual([
      'hi',
      'gateway prompt',
      'question',
    ]);
  });

  it('releases them when the turn settles, without duplicating the turn', () => {
    const events = [
      started(),
      submitted('r1', 'question', 1010),
      observed(agentRows, 1012),
      settled('r1', [user('question', 1010), assistant('answer', 1011)], 1012),
    ];
    expect(contents(events)).toEqual(['question', 'answer']);
  });
});

describe('a settle commits the merged display', () => {
  it('keeps an agent-store turn shown at the commit even when a later merge alone would drop it', () => {
    const events = [
      started(),
      recorded(user('one', 1000), assistant('first', 1001)),
      observed([stateRow(1, user('one', 1000)), stateRow(2, assistant('first', 1001)), stateRow(3, user('gateway turn', 1005)), stateRow(4, assistant('gateway reply', 1006))], 1007),
      submitted('r2', 'two', 1010),
      settled('r2', [user('two', 1010), assistant('second', 1011)], 1012),
      observed([stateRow(3, user('gateway turn', 1005), { active: false }), stateRow(4, assistant('gateway reply', 1006), { active: false })], 1013),
    ];
    expect(contents(events)).toEqual(['one', 'first', 'gateway turn', 'gateway reply', 'two', 'second']);
  });
});

describe('a truncation', () => {
  const history = [
    started(),
    recorded(user('q1', 1000), assistant('a1', 1001), user('q2', 1002), assistant('a2', 1003)),
    observed([stateRow(1, user('q1', 1000)), stateRow(2, assistant('a1', 1001)), stateRow(3, user('q2', 1002)), stateRow(4, assistant('a2', 1003))], 1004),
  ];

  it.each(['edit', 'retry', 'undo', 'compress'] as const)('on %s keeps the first rows and sets W = B = the last kept timestamp', (reason) => {
    const state = stateOf([...history, truncated(2, reason, 1100)]);
    expect(state.watermark).toBe(1001);
    expect(state.boundary).toBe(1001);
    expect(contents([...history, truncated(2, reason, 1100)])).toEqual(['q1', 'a1']);
  });

  it('on clear sets W = B = 0 and resurrects nothing from the agent store', () => {
    const events = [...history, truncated(0, 'clear', 1100)];
    expect(stateOf(events)).toMatchObject({ watermark: 0, boundary: 0 });
    expect(contents(events)).toEqual([]);
  });

  it('that keeps nothing sets W = B = 0', () => {
    expect(stateOf([...history, truncated(0, 'undo', 1100)])).toMatchObject({ watermark: 0, boundary: 0 });
  });

  it('has a positive watermark advanced by a user row committed later', () => {
    const events = [...history, truncated(2, 'retry', 1100), submitted('r3', 'q2 again', 1200), settled('r3', [user('q2 again', 1200), assistant('a2 again', 1201)], 1202)];
    expect(stateOf(events)).toMatchObject({ watermark: 1200, boundary: 1001 });
    expect(contents(events)).toEqual(['q1', 'a1', 'q2 again', 'a2 again']);
  });

  it('never advances a zero watermark', () => {
    const events = [...history, truncated(0, 'clear', 1100), recorded(user('fresh', 1200))];
    expect(stateOf(events)).toMatchObject({ watermark: 0, boundary: 0 });
    expect(contents(events)).toEqual(['fresh']);
  });
});

describe('the summary', () => {
  it('takes title, parent, times and counts from the events', () => {
    const view = projectSession([
      { type: 'SessionStarted', data: { sessionId: 's9', title: 'Plan', parentSessionId: 'p1', createdAt: 500 } },
      recorded(user('hi', 1001), assistant('hello', 1002)),
      observed([stateRow(1, user('hi', 1001))], 1500),
    ]);
    expect(view.summary).toEqual({
      sessionId: 's9',
      title: 'Plan',
      parentSessionId: 'p1',
      archived: false,
      createdAt: 500,
      lastActivityAt: 1500,
      messageCount: 2,
      pendingTurn: null,
      markers: { pending: 0, recovered: 0, noOutput: 0, neutral: 0 },
      status: 'active',
    });
  });

  it('is archived once the session is compressed', () => {
    const view = projectSession([started(), { type: 'SessionCompressed', data: { childSessionId: 'c1', at: 2000 } }]);
    expect(view.summary).toMatchObject({ archived: true, status: 'archived', lastActivityAt: 2000 });
  });
});
