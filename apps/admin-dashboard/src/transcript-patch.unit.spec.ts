import type { MessageRow, TranscriptPatch } from './api';
import type { CompactTranscriptPatchEvent } from '../../../libs/client/src/api-types.js';
import { applyPatch, type HeldTranscript, textOf } from './transcript-patch';

const row = (content: string): MessageRow => ({ role: 'assistant', content });
const held: HeldTranscript = { version: 4, view: 'display', hash: 'h4', messages: [row('a'), row('b'), row('c')], toolCards: [], markers: [], streaming: null };
const patch = (over: Partial<TranscriptPatch>): TranscriptPatch => ({ sessionId: 's', view: 'display', version: 5, hash: 'h5', since: 4, from: 3, messages: [], toolCards: [], markers: [], streaming: null, ...over }) as TranscriptPatch;
/** A compact patch (`compact=1`): the lists only when given, the streaming output as a change. */
const compact = (over: Partial<CompactTranscriptPatchEvent>): CompactTranscriptPatchEvent => ({ sessionId: 's', view: 'display', version: 5, hash: 'h5', since: 4, from: 3, messages: [], streamingDelta: null, ...over });

describe('applying a transcript patch', () => {
  it('keeps the first `from` rows and appends the messages', () => {
    const next = applyPatch(held, patch({ from: 2, messages: [row('c2'), row('d')] }))!;
    expect(next.messages.map((m) => m.content)).toEqual(['a', 'b', 'c2', 'd']);
    expect(next).toMatchObject({ version: 5, hash: 'h5' });
  });

  it('keeps the same rows array when only the streaming output moved', () => {
    const streaming = { runId: 'r', text: 'tok', reasoning: '', toolCards: [] };
    const next = applyPatch(held, patch({ streaming }))!;
    expect(next.messages).toBe(held.messages);
    expect(next.streaming).toEqual(streaming);
  });

  it('replaces everything on from 0 and refuses a from past the rows held', () => {
    expect(applyPatch(held, patch({ from: 0, messages: [row('z')] }))!.messages).toEqual([row('z')]);
    expect(applyPatch(held, patch({ from: 9 }))).toBeNull();
  });

  it('refuses a patch cut from a version it does not hold (a patch missed), unless it replaces every row', () => {
    expect(applyPatch(held, patch({ version: 7, since: 6, from: 2, messages: [row('x')] }))).toBeNull();
    expect(applyPatch(held, patch({ version: 7, since: 6, from: 0, messages: [row('x')] }))!.messages).toEqual([row('x')]);
  });

  it('applies a streaming delta to the streaming output held, and refuses one of another run or past the text held', () => {
    const streaming = { runId: 'r', text: 'Run npm', reasoning: '', toolCards: [] };
    const streamingHeld = { ...held, streaming };
    const delta = (over: Partial<NonNullable<CompactTranscriptPatchEvent['streamingDelta']>>) =>
      compact({ streamingDelta: { runId: 'r', textFrom: 7, text: ' install', reasoningFrom: 0, reasoning: '', ...over } });
    expect(applyPatch(streamingHeld, delta({}))!.streaming).toEqual({ ...streaming, text: 'Run npm install' });
    expect(applyPatch(streamingHeld, delta({ runId: 'other' }))).toBeNull();
    expect(applyPatch(streamingHeld, delta({ textFrom: 99 }))).toBeNull();
    expect(applyPatch(streamingHeld, compact({}))!.streaming).toBeNull();
  });

  it('keeps the lists a compact patch leaves out, and cannot apply one to a version it was not cut from', () => {
    const card = { name: 'grep', preview: 'grep', args: {}, done: true, isError: false, duration: null, assistantMessageIndex: 1, recoveredFromRunJournal: false, recoveredRunId: null };
    const withLists = { ...held, toolCards: [card], markers: [] };
    const next = applyPatch(withLists, compact({ messages: [row('d')] }))!;
    expect(next.toolCards).toBe(withLists.toolCards);
    expect(next.markers).toBe(withLists.markers);
    expect(applyPatch({ ...held, markers: null }, compact({}))).toBeNull();
    // Even one that replaces every row: the lists it leaves out are those of the version it was cut from.
    expect(applyPatch(withLists, compact({ since: 3, from: 0, messages: [row('z')] }))).toBeNull();
    expect(applyPatch(withLists, compact({ since: 3, from: 0, messages: [row('z')], toolCards: [], markers: [] }))!.messages).toEqual([row('z')]);
  });

  it('ignores a patch older than the version held', () => {
    expect(applyPatch(held, patch({ version: 3, from: 0 }))).toBe(held);
  });

  it('reads the text of string content and of text parts', () => {
    expect(textOf([{ type: 'text', text: 'one' }, { type: 'image_url', imageUrl: { url: 'x' } }, { type: 'text', text: 'two' }])).toBe('one\n\ntwo');
    expect(textOf(null)).toBe('');
  });
});
