import type { MessageRow } from '../messages/message-row.js';
import { attachApiContentFromState } from './api-content.prepass.js';
import { assistant, inWorkspace, user } from '../testing/merge-rows.fixture.js';

/** Reference §2.2: provider bytes of agent rows are attached to their sidecar rows, tier by tier. */
const API = inWorkspace('hi');
const photo: MessageRow = {
  role: 'user',
  content: [{ type: 'text', text: 'look' }, { type: 'image', image: 'b64' }],
  timestamp: 100,
};

describe('when agent rows carry provider bytes', () => {
  it.each<[string, MessageRow, MessageRow]>([
    ['tier 1: the same stable id, whatever the timestamps', user('hi', 100, { id: 'm-1' }), user(API, 700, { id: 'm-1', apiContent: API })],
    ['tier 2: the same durable row id', user('hi', 100, { rowId: 4 }), user(API, 700, { rowId: 4, apiContent: API })],
    ['tier 3: the same role and exact timestamp', user('hi', 100), user(API, 100, { apiContent: API })],
    ['tier 4: the same role, second and visible content', user('hi', 100), user(API, 100.4, { apiContent: API })],
    ['tier 5: the same visible content when one side has no timestamp', user('hi'), user(API, 700, { apiContent: API })],
    ['a native-image mirror of a rich row', photo, user('look [screenshot]', 100, { apiContent: 'rich bytes' })],
  ])('attaches them by %s', (_tier, sidecarRow, stateRow) => {
    expect(attachApiContentFromState([sidecarRow], [stateRow])).toEqual([{ ...sidecarRow, apiContent: stateRow.apiContent }]);
  });

  it.each<[string, MessageRow[], MessageRow[]]>([
    ['both sides have timestamps in different seconds', [user('hi', 100)], [user(API, 700, { apiContent: API })]],
    ['two sidecar rows are equally compatible', [user('hi', 100), user('hi', 100)], [user(API, 100, { apiContent: API })]],
    ['the stable ids conflict', [user('hi', 100, { id: 'a' })], [user(API, 100, { id: 'b', apiContent: API })]],
    ['the agent row id is invalid', [user('hi', 100)], [user(API, 100, { rowId: -3, apiContent: API })]],
    ['the sidecar timestamp is not finite', [user('hi', Number.NaN)], [user(API, 100, { apiContent: API })]],
    ['the agent row is a tool row', [{ role: 'tool', content: 'x', timestamp: 100 }], [{ role: 'tool', content: 'x', timestamp: 100, apiContent: 'b' }]],
    ['the sidecar row already has provider bytes', [user('hi', 100, { apiContent: 'own bytes' })], [user(API, 100, { apiContent: API })]],
    [
      'a row id is held twice on one side (quarantined before the other tiers)',
      [assistant('answer', undefined, { rowId: 4 })],
      [assistant('answer', 300, { rowId: 4, apiContent: 'y' }), assistant('other', 301, { rowId: 4, apiContent: 'z' })],
    ],
    [
      'a row-id pair carries different provider bytes',
      [assistant('answer', 100, { rowId: 4, apiContent: 'a' })],
      [assistant('answer', 100, { rowId: 4, apiContent: 'b' })],
    ],
  ])('attaches nothing when %s', (_case, sidecar, state) => {
    expect(attachApiContentFromState(sidecar, state)).toEqual(sidecar);
  });

  it('pairs several rows in one pass, each by its own tier, never by list position', () => {
    const sidecar = [user('one', 100), assistant('two', 101), user('three', 102)];
    const state = [user('three', 102.5, { apiContent: 'b3' }), user('one', 100, { apiContent: 'b1' })];

    expect(attachApiContentFromState(sidecar, state)).toEqual([
      user('one', 100, { apiContent: 'b1' }),
      sidecar[1],
      user('three', 102, { apiContent: 'b3' }),
    ]);
  });
});
