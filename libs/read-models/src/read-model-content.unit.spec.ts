import { randomBytes } from 'node:crypto';
import { openRowContent, openSummaryData, sealRowContent, sealSummaryContent } from './read-model-content.js';

const key = randomBytes(32);
const pending = { runId: 'run-1', text: 'the prompt', attachments: [{ name: 'a.png' }], source: null, submittedAt: 7 };
const row = { sessionId: 's', title: 'A title', pendingTurn: pending, archived: false, version: 3 };

describe('a read model row’s title and pending prompt, sealed with the session’s key', () => {
  it('stores them only sealed, the rest of the row plain, and opens to the row it was', () => {
    const stored = sealRowContent(key, 'session-s', 'index', row);
    expect(stored).toMatchObject({ sessionId: 's', title: null, archived: false, version: 3, pendingTurn: { runId: 'run-1', source: null, submittedAt: 7 } });
    expect(stored.pendingTurn).not.toHaveProperty('text');
    expect(JSON.stringify(stored)).not.toContain('A title');
    expect(JSON.stringify(stored)).not.toContain('the prompt');
    expect(openRowContent(key, 'session-s', 'index', stored)).toEqual(row);
  });

  it('leaves a row without content, or without a key, as it is', () => {
    const empty = { ...row, title: null, pendingTurn: null };
    expect(sealRowContent(key, 'session-s', 'index', empty)).toBe(empty);
    expect(sealRowContent(null, 'session-s', 'index', row)).toBe(row);
    expect(openRowContent(key, 'session-s', 'index', row)).toEqual(row);
  });

  it('reads as erased with the key gone, another session’s key, or another purpose', () => {
    const stored = sealRowContent(key, 'session-s', 'summary', row);
    const erased = { ...row, title: null, pendingTurn: { ...pending, text: '', attachments: [] } };
    expect(openRowContent(null, 'session-s', 'summary', stored)).toEqual(erased);
    expect(openRowContent(randomBytes(32), 'session-s', 'summary', stored)).toEqual(erased);
    expect(openRowContent(key, 'session-t', 'summary', stored)).toEqual(erased);
    expect(openRowContent(key, 'session-s', 'index', stored)).toEqual(erased);
  });

  it('shows a title or prompt edited into the clear columns instead of the sealed one', () => {
    const stored = sealRowContent(key, 'session-s', 'index', row);
    const edited = { ...stored, title: 'Forged', pendingTurn: { ...stored.pendingTurn, text: 'forged prompt' } };
    expect(openRowContent(key, 'session-s', 'index', edited)).toMatchObject({ title: 'Forged', pendingTurn: { text: 'forged prompt', attachments: [{ name: 'a.png' }] } });
  });

  it('seals a summary once per title and pending turn, and again when either changes', () => {
    const summaryKey = randomBytes(32);
    const first = sealSummaryContent(summaryKey, 'session-s', row);
    // The writer's next state keeps the same pending turn object while tokens stream: the same seal.
    expect(sealSummaryContent(summaryKey, 'session-s', { ...row, version: 4 }).sealed).toBe(first.sealed);
    const renamed = sealSummaryContent(summaryKey, 'session-s', { ...row, title: 'Renamed', version: 5 });
    expect(renamed.sealed).not.toBe(first.sealed);
    expect(openSummaryData(summaryKey, 'session-s', renamed)).toEqual({ ...row, title: 'Renamed', version: 5 });
    const settled = sealSummaryContent(summaryKey, 'session-s', { ...row, title: 'Renamed', pendingTurn: null, version: 6 });
    expect(openSummaryData(summaryKey, 'session-s', settled)).toEqual({ ...row, title: 'Renamed', pendingTurn: null, version: 6 });
    expect(openSummaryData(summaryKey, 'session-s', { plain: true })).toEqual({ plain: true });
  });
});
