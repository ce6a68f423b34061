import fc from 'fast-check';
import type { StreamingOutput, ToolCard } from '#domain';
import { streamingAfterDelta } from '../../../../libs/client/src/transcript-delta.js';
import { keptCodeUnits, streamingDeltaOf } from './live-patch.js';

// Texts that grow, shrink and change inside, astral characters (surrogate pairs) included.
const text = fc.array(fc.constantFrom('a', 'b', ' ', '\n\n', '😀', '😁', 'é', 'xyz'), { maxLength: 12 }).map((parts) => parts.join(''));
const card = (name: string, done: boolean): ToolCard => ({ name, preview: name, args: {}, done, isError: false, duration: null, assistantMessageIndex: null, recoveredFromRunJournal: true, recoveredRunId: 'r' }) as ToolCard;
const output: fc.Arbitrary<StreamingOutput | null> = fc.option(
  fc.record({
    runId: fc.constantFrom('r1', 'r2'),
    text,
    reasoning: text,
    toolCards: fc.array(fc.tuple(fc.constantFrom('grep', 'read'), fc.boolean()).map(([name, done]) => card(name, done)), { maxLength: 2 }),
  }),
  { freq: 5 },
);

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('a live patch’s streamingDelta', () => {
  it('applied by the client library to what the stream sent before, is the next output exactly', () => {
    fc.assert(
      fc.property(fc.array(output, { minLength: 1, maxLength: 8 }), (outputs) => {
        let sent: StreamingOutput | null = null;
        let held: ReturnType<typeof streamingAfterDelta<ToolCard>> = null;
        for (const next of outputs) {
          const delta = streamingDeltaOf(sent, next);
          // As JSON carries it to the client (the domain's arrays are readonly, the contract's types are not).
          held = streamingAfterDelta(held ?? null, delta as Parameters<typeof streamingAfterDelta<ToolCard>>[1]);
          expect(held).toEqual(next);
          // Each part is well-formed text: no surrogate pair cut in two.
          if (delta !== null) for (const part of [delta.text, delta.reasoning]) expect(part).not.toMatch(LONE_SURROGATE);
          sent = next;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('sends what a token adds, and the cards only when they changed', () => {
    const cards = [card('grep', false)];
    const before: StreamingOutput = { runId: 'r1', text: 'Run npm', reasoning: 'hm', toolCards: cards };
    expect(streamingDeltaOf(before, { ...before, text: 'Run npm install' })).toEqual({ runId: 'r1', textFrom: 7, text: ' install', reasoningFrom: 2, reasoning: '' });
    expect(streamingDeltaOf(before, { ...before, toolCards: [card('grep', true)] })).toMatchObject({ toolCards: [expect.objectContaining({ done: true })] });
    // Another run's output, or the first of a stream, is whole.
    expect(streamingDeltaOf(before, { ...before, runId: 'r2' })).toEqual({ runId: 'r2', textFrom: 0, text: 'Run npm', reasoningFrom: 0, reasoning: 'hm', toolCards: cards });
    expect(streamingDeltaOf(null, before)).toMatchObject({ textFrom: 0, toolCards: cards });
    expect(streamingDeltaOf(before, null)).toBeNull();
  });

  it('never cuts a surrogate pair', () => {
    expect(keptCodeUnits('ab😀', 'ab😁')).toBe(2);
    expect(keptCodeUnits('ab', 'abc')).toBe(2);
    expect(keptCodeUnits('abc', 'abd')).toBe(2);
  });
});
