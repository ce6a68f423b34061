import type { SessionEvent } from '../events/session.events.js';
import { evolveAll } from './session.evolve.js';
import { projectSession } from './session.render.js';
import { initialSessionState, isRunSlot } from '../session-state/session.state.js';
import {
  assistant,
  interrupted,
  observed,
  recorded,
  settled,
  started,
  stateRow,
  submitted,
  truncated,
  user,
} from '../testing/session.fixtures.js';

const committedOf = (events: SessionEvent[]) => evolveAll(initialSessionState(), events).committed;
const turn = (n: number, rowId: number): SessionEvent[] => [
  submitted(`r${n}`, `q${n}`, 1000 + n * 100),
  settled(`r${n}`, [user(`q${n}`, 1000 + n * 100), assistant(`a${n}`, 1005 + n * 100)], 1006 + n * 100),
  observed([stateRow(rowId, user(`[Workspace::v1: /w]\nq${n}`, 1000.3 + n * 100)), stateRow(rowId + 1, assistant(`a${n}`, 1005.5 + n * 100))], 1007 + n * 100),
];

describe('a commit', () => {
  it('keeps S as it is when the agent store only replays the committed turns', () => {
    const events = [started(), ...turn(1, 1), ...turn(2, 3), ...turn(3, 5)];
    expect(committedOf(events).map((entry) => (isRunSlot(entry) ? entry.slot : entry.content))).toEqual(['q1', 'a1', 'q2', 'a2', 'q3', 'a3']);
    expect(projectSession(events).display.map((row) => row.content)).toEqual(['q1', 'a1', 'q2', 'a2', 'q3', 'a3']);
  });

  it('fixes an agent-store-only row into S', () => {
    const gateway = observed([stateRow(3, user('from telegram', 1150)), stateRow(4, assistant('telegram reply', 1151))], 1152);
    const events = [started(), ...turn(1, 1), gateway, ...turn(2, 5)];
    expect(committedOf(events).map((entry) => (isRunSlot(entry) ? entry.slot : entry.content))).toEqual([
      'q1',
      'a1',
      'from telegram',
      'telegram reply',
      'q2',
      'a2',
    ]);
  });

  it('keeps a run slot in S across later commits, so the marker still re-derives', () => {
    const events = [started(), recorded(user('hi', 1001)), submitted('r1', 'q', 1010), interrupted('r1', 1100), ...turn(2, 1)];
    expect(committedOf(events).filter(isRunSlot)).toEqual([{ slot: 'r1' }]);
  });

  it('remembers how many rows of a slot a truncation kept', () => {
    const events = [started(), recorded(user('hi', 1001)), submitted('r1', 'q', 1010), interrupted('r1', 1100), truncated(2, 'edit', 1200)];
    expect(committedOf(events)).toEqual([user('hi', 1001), { slot: 'r1', limit: 1 }]);
    expect(projectSession(events).markers).toEqual([]);
  });
});

describe('a recovered pending row', () => {
  it('advances a positive watermark to its whole-second timestamp', () => {
    const events = [started(), recorded(user('a', 1001), assistant('b', 1002)), truncated(2, 'retry', 1050), submitted('r1', 'q', 1100.7), interrupted('r1', 1200)];
    expect(evolveAll(initialSessionState(), events)).toMatchObject({ watermark: 1100, boundary: 1002 });
  });
});
