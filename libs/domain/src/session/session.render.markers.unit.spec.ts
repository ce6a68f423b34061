import { INTERRUPTED_MARKER_LEAD } from '../markers/marker-wording.constants.js';
import type { SessionEvent } from '../events/session.events.js';
import { projectSession } from './session.render.js';
import {
  abandoned,
  assistant,
  interrupted,
  journal,
  observed,
  recorded,
  recoveredFromAgentStore,
  settled,
  started,
  stateRow,
  submitted,
  tokens,
  user,
} from '../testing/session.fixtures.js';

const history = [started(), recorded(user('hi', 1001), assistant('hello', 1002)), submitted('r1', 'question', 1010.6)];
const markerRowOf = (events: SessionEvent[]) => projectSession(events).display.find((row) => row.type === 'interrupted');
const markersOf = (events: SessionEvent[]) => projectSession(events).markers;

describe('when a pending turn is interrupted before its journal arrives', () => {
  const events = [...history, interrupted('r1', 1100.9, 'process_restart')];

  it('turns the pending prompt into the recovered user row, followed by the marker', () => {
    const view = projectSession(events);
    expect(view.display.slice(2)).toEqual([
      { role: 'user', content: 'question', timestamp: 1010, recovered: true },
      {
        role: 'assistant',
        content: expect.stringContaining('Recovering the partial output from the run journal'),
        timestamp: 1100,
        error: true,
        type: 'interrupted',
        interruptionCause: 'process_restart',
      },
    ]);
    expect(view.pendingTurn).toBeNull();
  });

  it('lists a pending_journal marker at its display index and reports the session as recovering', () => {
    const view = projectSession(events);
    expect(view.markers).toEqual([
      expect.objectContaining({ runId: 'r1', cause: 'process_restart', status: 'pending_journal', timestamp: 1100, messageIndex: 3 }),
    ]);
    expect(view.markers[0]?.content.startsWith(INTERRUPTED_MARKER_LEAD)).toBe(true);
    expect(view.summary).toMatchObject({ status: 'recovering', markers: { pending: 1, recovered: 0, noOutput: 0, neutral: 0 } });
  });

  it('keeps the recovered prompt in the context and the marker out of it', () => {
    expect(projectSession(events).context.map((row) => row.content)).toEqual(['hi', 'hello', 'question']);
  });
});

describe('when the journal arrives late', () => {
  const late = [...history, interrupted('r1', 1100), ...tokens('r1', 1, ['Partial ', 'answer'], 1011)];

  it('promotes the marker to recovered', () => {
    expect(markersOf(late)).toEqual([expect.objectContaining({ status: 'recovered', messageIndex: 4 })]);
    expect(markerRowOf(late)?.content).toContain('The partial output above was recovered from the run journal');
  });

  it('places the recovered output between the prompt and the marker', () => {
    expect(projectSession(late).display.slice(2).map((row) => row.content)).toEqual([
      'question',
      'Partial answer',
      expect.stringContaining('Response interrupted'),
    ]);
  });

  it('adds tool cards under their recovered row', () => {
    const withTool = [...late, journal('r1', 3, 'tool', { name: 'search', preview: 'docs', args: { q: 'x' } }, 1013)];
    expect(projectSession(withTool).toolCards).toEqual([expect.objectContaining({ name: 'search', assistantMessageIndex: 3, recoveredRunId: 'r1' })]);
  });
});

describe('a marker whose journal ends without output', () => {
  it('says no output was recovered', () => {
    const events = [...history, interrupted('r1', 1100), journal('r1', 1, 'cancel', {}, 1012)];
    expect(markersOf(events)).toEqual([expect.objectContaining({ status: 'no_output' })]);
    expect(projectSession(events).summary.status).toBe('interrupted');
  });

  it('stays pending while a seq before the terminal event is missing', () => {
    const events = [...history, interrupted('r1', 1100), journal('r1', 2, 'cancel', {}, 1012)];
    expect(markersOf(events)).toEqual([expect.objectContaining({ status: 'pending_journal' })]);
  });
});

describe('after journal recovery is abandoned', () => {
  const events = [...history, interrupted('r1', 1100), abandoned('r1', 90_000)];

  it('turns neutral', () => {
    expect(markersOf(events)).toEqual([expect.objectContaining({ status: 'neutral' })]);
    expect(markerRowOf(events)?.content).toContain('Partial output may have been lost.');
  });

  it('is still promoted by a journal that arrives even later', () => {
    expect(markersOf([...events, ...tokens('r1', 1, ['late'], 1011)])).toEqual([expect.objectContaining({ status: 'recovered' })]);
  });
});

describe('when the run journal ends completed', () => {
  const events = [...history, interrupted('r1', 1100), ...tokens('r1', 1, ['Full ', 'answer'], 1011), journal('r1', 3, 'done', {}, 1012)];

  it('settles the turn from its journal, with no marker', () => {
    const view = projectSession(events);
    expect(view.display.map((row) => row.content)).toEqual(['hi', 'hello', 'question', 'Full answer']);
    expect(view.markers).toEqual([]);
    expect(view.summary.status).toBe('active');
  });
});

describe('when the finished worker settles its interrupted turn', () => {
  const events = [
    ...history,
    interrupted('r1', 1100),
    settled('r1', [user('question', 1010), assistant('the real answer', 1105)], 1106),
  ];

  it('supersedes the marker: its rows give way to the settled turn', () => {
    const view = projectSession(events);
    expect(view.display.map((row) => row.content)).toEqual(['hi', 'hello', 'question', 'the real answer']);
    expect(view.markers).toEqual([expect.objectContaining({ runId: 'r1', status: 'superseded', messageIndex: null })]);
    expect(view.summary.status).toBe('active');
  });

  it('is ignored once a newer turn follows the marker', () => {
    const blocked = [...history, interrupted('r1', 1100), recorded(user('next', 1200)), settled('r1', [user('question', 1010), assistant('late', 1105)], 1206)];
    expect(projectSession(blocked).display.map((row) => row.content)).not.toContain('late');
  });
});

describe('when the agent store already holds the turn', () => {
  it('adopts the agent rows, clears the pending turn and shows no marker', () => {
    const events = [
      ...history,
      observed([stateRow(1, user('hi', 1001)), stateRow(2, assistant('hello', 1002)), stateRow(3, user('question', 1010.7)), stateRow(4, assistant('agent answer', 1015))], 1050),
      recoveredFromAgentStore('r1', 1100),
    ];
    const view = projectSession(events);
    expect(view.display.map((row) => row.content)).toEqual(['hi', 'hello', 'question', 'agent answer']);
    expect(view.markers).toEqual([]);
    expect(view.pendingTurn).toBeNull();
  });
});

describe('a gateway terminal error in the journal', () => {
  it('replaces the marker with the error row', () => {
    const error = { role: 'assistant', content: 'Gateway failed: quota', _error: true };
    const payload = { type: 'quota', session_id: 's1', session: { session_id: 's1', messages: [{ role: 'user', content: 'question' }, error] } };
    const view = projectSession([...history, interrupted('r1', 1100), journal('r1', 1, 'apperror', payload, 1012)]);
    expect(view.display.at(-1)).toMatchObject({ role: 'assistant', content: 'Gateway failed: quota', error: true, recoveredEventId: 'r1:1' });
    expect(view.markers).toEqual([]);
  });
});
