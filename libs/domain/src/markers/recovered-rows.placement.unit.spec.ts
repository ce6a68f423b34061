import type { MessageRow, ToolCard } from '../messages/message-row.js';
import { INTERRUPTED_NEUTRAL_WORDING, INTERRUPTED_PENDING_RETRY_WORDING } from './marker-wording.constants.js';
import { canSupersedeMarker, placeRecoveredRows } from './recovered-rows.placement.js';

const prompt: MessageRow = { role: 'user', content: 'Scan the PRs', timestamp: 10 };
const marker: MessageRow = {
  role: 'assistant',
  content: INTERRUPTED_PENDING_RETRY_WORDING,
  error: true,
  type: 'interrupted',
  timestamp: 50,
};
const rec = (content: string, runId = 'run-1'): MessageRow => ({
  role: 'assistant',
  content,
  recoveredFromRunJournal: true,
  recoveredRunId: runId,
});
const cardAt = (assistantMessageIndex: number | null): ToolCard => ({
  name: 'terminal',
  preview: '',
  args: {},
  done: true,
  isError: false,
  duration: null,
  assistantMessageIndex,
  recoveredFromRunJournal: true,
  recoveredRunId: 'run-1',
});

describe('placing recovered rows (§3.9)', () => {
  it('moves the run rows that arrived after its marker above it and keeps other rows after it', () => {
    const later: MessageRow = { role: 'user', content: 'next', timestamp: 60 };
    const rows = [prompt, marker, rec('one'), later, rec('two'), rec('other run', 'run-2')];
    const cards = [cardAt(2), cardAt(4), cardAt(3), cardAt(0), cardAt(null), cardAt(5)];
    expect(placeRecoveredRows(rows, 'run-1', cards)).toEqual({
      rows: [prompt, rec('one'), rec('two'), marker, later, rec('other run', 'run-2')],
      toolCards: [cardAt(1), cardAt(2), cardAt(4), cardAt(0), cardAt(null), cardAt(5)],
    });
  });

  it('leaves rows already above the marker where they are', () => {
    const rows = [prompt, rec('one'), marker];
    expect(placeRecoveredRows(rows, 'run-1')).toEqual({ rows, toolCards: [] });
  });

  it('changes nothing without a marker', () => {
    const rows = [prompt, rec('one')];
    expect(placeRecoveredRows(rows, 'run-1', [cardAt(1)])).toEqual({ rows, toolCards: [cardAt(1)] });
  });
});

describe('a finished run superseding its marker (§3.10)', () => {
  it('is allowed while its marker is the last row after its own prompt', () => {
    expect(canSupersedeMarker([prompt, rec('partial'), marker], ' Scan  the PRs')).toBe(true);
  });

  it('is allowed over a neutral marker too', () => {
    expect(canSupersedeMarker([prompt, { ...marker, content: INTERRUPTED_NEUTRAL_WORDING }], 'Scan the PRs')).toBe(true);
  });

  it('skips error rows when looking for the prompt', () => {
    expect(canSupersedeMarker([prompt, { role: 'user', content: 'x', error: true }, marker], 'Scan the PRs')).toBe(true);
  });

  it.each<[string, MessageRow[], string]>([
    ['the marker is the only row', [marker], 'Scan the PRs'],
    ['a newer row follows the marker', [prompt, marker, { role: 'user', content: 'next' }], 'Scan the PRs'],
    ['the prompt differs', [prompt, marker], 'Scan the issues'],
    ['there is no prompt', [rec('a'), marker], 'Scan the PRs'],
    ['the last row is not flagged as an error', [prompt, { ...marker, error: false }], 'Scan the PRs'],
    ['the last row is not an interrupted marker', [prompt, { ...marker, type: 'error' }], 'Scan the PRs'],
    ['the marker text is foreign', [prompt, { ...marker, content: '**Response interrupted.** Try again.' }], 'Scan the PRs'],
    ['the marker text lacks the headline', [prompt, { ...marker, content: 'Stopped before this turn finished.' }], 'Scan PRs'],
  ])('is refused when %s', (_reason, rows, runText) => {
    expect(canSupersedeMarker(rows, runText)).toBe(false);
  });
});
