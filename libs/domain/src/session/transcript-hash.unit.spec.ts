import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonical/canonical-json.js';
import type { MessageRow, ToolCard } from '../messages/message-row.js';
import { chainRows, TRANSCRIPT_CHAIN_SEED, transcriptHashOf } from './transcript-hash.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const rows: MessageRow[] = [
  { role: 'user', content: 'hi', timestamp: 1 },
  { role: 'assistant', content: 'hello — ünïcode', timestamp: 2 },
];
const cards: ToolCard[] = [
  { name: 'search', preview: 'q', args: {}, done: true, isError: false, duration: 0.5, assistantMessageIndex: 1, recoveredFromRunJournal: false, recoveredRunId: null },
];

describe('the transcript hash (README "Transcript hash")', () => {
  it('chains sha256 over each row\'s canonical JSON from the seed, then over the tool cards', () => {
    const link1 = sha(TRANSCRIPT_CHAIN_SEED + canonicalJson(rows[0]));
    const link2 = sha(link1 + canonicalJson(rows[1]));
    expect(chainRows(rows)).toEqual([link1, link2]);
    expect(transcriptHashOf([link1, link2], cards)).toBe(sha(link2 + canonicalJson(cards)));
  });

  it('reuses the links of the rows an earlier transcript shares by reference, and hashes the same as from scratch', () => {
    const earlier = { messages: rows, links: chainRows(rows) };
    const longer = [...rows, { role: 'user', content: 'more', timestamp: 3 } as MessageRow];
    expect(chainRows(longer, earlier)).toEqual(chainRows(longer));
    // A copied row is not trusted by reference: its link is computed again (and is equal when the row is).
    const edited = [rows[0], { ...rows[1], content: 'changed' }];
    expect(chainRows(edited, earlier)).toEqual(chainRows(edited));
    expect(chainRows(edited, earlier)[1]).not.toBe(earlier.links[1]);
  });

  it('tells apart transcripts that differ only in where a row ends', () => {
    const a = chainRows([{ role: 'user', content: 'ab', timestamp: 1 }]);
    const b = chainRows([{ role: 'user', content: 'a', timestamp: 1 }]);
    expect(transcriptHashOf(a, [])).not.toBe(transcriptHashOf(b, []));
  });
});
