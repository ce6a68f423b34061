import type { MessageRow } from '../messages/message-row.js';
import { mergeSessionMessages } from './session-messages.merge.js';
import { reconcileContext } from '../context/context.reconcile.js';
import { assistant, call, deepFreeze, inWorkspace, tool, user } from '../testing/merge-rows.fixture.js';

/**
 * The reference mutates sidecar rows during a merge (provider bytes, display metadata). Ours must
 * not: deep-frozen inputs would throw on any write, and two runs must agree.
 */
const photo: MessageRow = {
  role: 'user',
  content: [{ type: 'text', text: 'see' }, { type: 'image_url', imageUrl: { url: 'data:x' } }],
  timestamp: 90,
};

function scenario(): { sidecar: MessageRow[]; state: MessageRow[] } {
  return {
    sidecar: [
      photo,
      assistant('seen', 91, { meta: { usedModel: '' } }),
      user('q1', 100),
      assistant('', 101, { toolCalls: [call('c-1')] }),
      tool('out', 101, { toolCallId: 'c-1' }),
      assistant('final', 110),
    ],
    state: [
      user('see [screenshot]', 90, { apiContent: 'rich bytes', meta: { turnUsage: { in: 3 } } }),
      assistant('seen', 91.2, { meta: { usedModel: 'vision-1' } }),
      user(inWorkspace('q1'), 100.1, { apiContent: inWorkspace('q1') }),
      user('rescued prompt', 105),
      user(inWorkspace('appended'), 200, { rowId: 12 }),
    ],
  };
}

describe('when the merge inputs are deep-frozen', () => {
  it('still merges, enriching copies, and returns equal output twice', () => {
    const { sidecar, state } = scenario();
    const snapshot = structuredClone({ sidecar, state });
    deepFreeze(sidecar);
    deepFreeze(state);

    const first = mergeSessionMessages(sidecar, state);
    const second = mergeSessionMessages(sidecar, state);

    expect(first).toEqual(second);
    expect({ sidecar, state }).toEqual(snapshot);
    expect(first).toEqual([
      { ...photo, apiContent: 'rich bytes', meta: { turnUsage: { in: 3 } } },
      assistant('seen', 91, { meta: { usedModel: 'vision-1' } }),
      user('q1', 100, { apiContent: inWorkspace('q1') }),
      sidecar[3],
      sidecar[4],
      state[3],
      sidecar[5],
      state[4],
    ]);
  });

  it('reconciles a frozen context the same way twice', () => {
    const { sidecar, state } = scenario();
    deepFreeze(sidecar);
    deepFreeze(state);

    expect(reconcileContext(sidecar, state, { watermark: 300 })).toEqual(reconcileContext(sidecar, state, { watermark: 300 }));
  });

  it('reuses unchanged input rows and never hands back an enriched input object', () => {
    const { sidecar, state } = scenario();
    const merged = mergeSessionMessages(deepFreeze(sidecar), deepFreeze(state));

    expect(merged[3]).toBe(sidecar[3]);
    expect(merged[1]).not.toBe(sidecar[1]);
    expect(sidecar[1]!.meta).toEqual({ usedModel: '' });
  });
});
