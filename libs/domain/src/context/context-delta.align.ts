import type { MessageRow } from '../messages/message-row.js';
import { attachApiContentFromState } from '../transcript-merge/api-content.prepass.js';
import { contentKeyOf, keyRow, type Side } from '../transcript-merge/comparison-keys.builder.js';
import { createKeyIndex, keyIndexGet, keyIndexSetIfAbsent } from '../transcript-merge/key.index.js';
import { withTextMemo } from '../text/whitespace.js';

/**
 * `state_db_delta_after_context` (reference §2.6): the agent-store rows that come after what the
 * model-facing context already holds. Alignment uses the content key (context verbatim, agent rows
 * prefix-stripped) after the api_content pre-pass.
 */
export function stateDeltaAfterContext(local: readonly MessageRow[], state: readonly MessageRow[]): MessageRow[] {
  return withTextMemo(() => deltaAfterContext(local, state));
}

function deltaAfterContext(local: readonly MessageRow[], state: readonly MessageRow[]): MessageRow[] {
  if (local.length === 0 || state.length === 0) return state.slice();
  const attached = attachApiContentFromState(local, state);
  // Content key → a small integer, through the split-key index (no composite string per row).
  const ids = createKeyIndex<number>();
  let next = 0;
  const idOf = (row: MessageRow, side: Side): number => {
    const key = contentKeyOf(keyRow(row, side));
    let id = keyIndexGet(ids, key);
    if (id === undefined) keyIndexSetIfAbsent(ids, key, (id = next++));
    return id;
  };
  const stateIds = state.map((row) => idOf(row, 'state'));
  const localIds = attached.map((row) => idOf(row, 'sidecar'));
  const { offset, length } = longestStateRunInLocal(stateIds, localIds);
  const first = attached[0];
  const recoveredStart = offset === 0 && first?.role === 'user' && first.recovered === true;
  if (length < 2 && !(length >= 1 && recoveredStart)) return state.slice();
  // Quirk kept from the reference: the context cursor restarts at `length`, not `offset + length`.
  let l = length;
  let s = length;
  while (l < localIds.length && s < stateIds.length && localIds[l] === stateIds[s]) {
    l += 1;
    s += 1;
  }
  return l >= localIds.length ? state.slice(s) : state.slice(length);
}

/**
 * The longest run `local[offset + i] === state[i]` (state aligned from its start, any offset into
 * local); the smallest offset wins a tie. A Z-array over `state ++ [separator] ++ local` gives every
 * offset's run length in linear time, so repeated content cannot make the alignment quadratic.
 */
function longestStateRunInLocal(stateIds: readonly number[], localIds: readonly number[]): { offset: number; length: number } {
  const sequence = [...stateIds, -1, ...localIds];
  const z = zArray(sequence);
  let best = { offset: 0, length: 0 };
  for (let offset = 0; offset < localIds.length; offset += 1) {
    const length = z[stateIds.length + 1 + offset]!;
    if (length > best.length) best = { offset, length };
  }
  return best;
}

/** z[i] = length of the longest common prefix of `sequence` and `sequence[i..]`. */
function zArray(sequence: readonly number[]): Int32Array {
  const n = sequence.length;
  const z = new Int32Array(n);
  let left = 0;
  let right = 0;
  for (let i = 1; i < n; i += 1) {
    let length = i < right ? Math.min(right - i, z[i - left]!) : 0;
    while (i + length < n && sequence[length] === sequence[i + length]) length += 1;
    z[i] = length;
    if (i + length > right) {
      left = i;
      right = i + length;
    }
  }
  return z;
}
