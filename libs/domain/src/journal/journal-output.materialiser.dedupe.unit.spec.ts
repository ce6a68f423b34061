import type { JournalEvent, MessageRow } from '../messages/message-row.js';
import { materialiseJournal } from './journal-output.materialiser.js';
import { type MaterialiseJournalInput, type PendingTurn } from './journal.types.js';
import { journalEvents } from '../testing/journal-events.builder.js';

const RUN = 'run-1';
const ev = journalEvents(3000);
const rerun = (
  events: readonly JournalEvent[],
  rows: readonly MessageRow[],
  extra: Partial<MaterialiseJournalInput> = {},
) =>
  materialiseJournal({
    runId: RUN,
    events,
    rows,
    context: [],
    toolCards: [],
    dedupeExisting: true,
    fallbackTimestamp: 1,
    ...extra,
  });
const fresh = (content: string, seq: number, extra: Partial<MessageRow> = {}): MessageRow => ({
  role: 'assistant',
  content,
  timestamp: 3000 + seq,
  recoveredFromRunJournal: true,
  recoveredRunId: RUN,
  ...extra,
});
const pending: PendingTurn = { text: 'Summarise the PRs', submittedAt: 200.6, attachments: [], source: null };
const prompt: MessageRow = { role: 'user', content: 'Summarise the PRs', timestamp: 200 };

describe('a re-run with dedupe', () => {
  it('reuses a row with whitespace-equal text instead of adding a copy', () => {
    const rows: MessageRow[] = [prompt, { role: 'assistant', content: 'Checking   GitHub\nfirst.' }];
    const result = rerun([ev(1, 'token', { text: 'Checking GitHub first.' })], rows);
    expect([result.rows, result.context, result.recovered]).toEqual([rows, rows, false]);
  });

  it('reuses a row that contains a candidate of at least 24 characters', () => {
    const rows: MessageRow[] = [prompt, { role: 'assistant', content: 'Done: the first PR scan completed, two remain.' }];
    const result = rerun([ev(1, 'token', { text: 'the first PR scan completed' })], rows);
    expect([result.rows, result.recovered]).toEqual([rows, false]);
  });

  it('adds a contained candidate shorter than 24 characters as a new row', () => {
    const rows: MessageRow[] = [prompt, { role: 'assistant', content: 'Done: the first PR scan completed, two remain.' }];
    const result = rerun([ev(1, 'token', { text: 'first PR scan completed' })], rows);
    expect(result.rows).toEqual([...rows, fresh('first PR scan completed', 1)]);
  });

  it('never reuses an error row or a row it already claimed', () => {
    const rows: MessageRow[] = [
      prompt,
      { role: 'assistant', content: 'Same.', error: true },
      { role: 'assistant', content: 'Same.' },
    ];
    const events = [ev(1, 'interim_assistant', { text: 'Same.' }), ev(2, 'interim_assistant', { text: 'Same.' })];
    expect(rerun(events, rows).rows).toEqual([...rows, fresh('Same.', 2)]);
  });

  it('reuses only rows that were there before the pass', () => {
    const events = [ev(1, 'interim_assistant', { text: 'Twice said.' }), ev(2, 'interim_assistant', { text: 'Twice said.' })];
    expect(rerun(events, [prompt]).rows).toEqual([prompt, fresh('Twice said.', 1), fresh('Twice said.', 2)]);
  });

  it('attaches recovered reasoning to a reused row of the current turn', () => {
    const rows: MessageRow[] = [prompt, { role: 'assistant', content: 'Same answer' }];
    const result = rerun([ev(1, 'reasoning', { text: 'why' }), ev(2, 'token', { text: 'Same answer' })], rows, { pending });
    expect([result.rows, result.recovered]).toEqual([
      [prompt, { role: 'assistant', content: 'Same answer', reasoning: 'why' }],
      true,
    ]);
  });

  it('keeps the reasoning a reused row already has', () => {
    const rows: MessageRow[] = [prompt, { role: 'assistant', content: 'Same answer', reasoning: 'old' }];
    const result = rerun([ev(1, 'reasoning', { text: 'why' }), ev(2, 'token', { text: 'Same answer' })], rows, { pending });
    expect([result.rows, result.recovered]).toEqual([rows, false]);
  });

  it('does not give reasoning to a row owned by an earlier prompt', () => {
    const rows: MessageRow[] = [
      { role: 'user', content: 'old question', timestamp: 100 },
      { role: 'assistant', content: 'Same answer' },
      prompt,
    ];
    const result = rerun([ev(1, 'reasoning', { text: 'why' }), ev(2, 'token', { text: 'Same answer' })], rows, { pending });
    expect(result.rows).toEqual([...rows, fresh('Same answer', 2, { reasoning: 'why' })]);
  });

  it('does not give reasoning to a row that a newer prompt follows, except the recovered echo', () => {
    const answer: MessageRow = { role: 'assistant', content: 'Same answer' };
    const echo: MessageRow = { ...prompt, recovered: true };
    const later: MessageRow = { role: 'user', content: 'next question', timestamp: 300 };
    const events = [ev(1, 'reasoning', { text: 'why' }), ev(2, 'token', { text: 'Same answer' })];
    const withEcho = rerun(events, [prompt, answer, echo], { pending }).rows;
    const withLater = rerun(events, [prompt, answer, later], { pending }).rows;
    expect([withEcho, withLater]).toEqual([
      [prompt, { ...answer, reasoning: 'why' }, echo],
      [prompt, answer, later, fresh('Same answer', 2, { reasoning: 'why' })],
    ]);
  });

  it('reuses a reasoning-only row of the same run', () => {
    const rows: MessageRow[] = [prompt, fresh('', 1, { reasoning: 'Planning' })];
    const result = rerun([ev(1, 'reasoning', { text: 'Planning ' }), ev(2, 'done')], rows);
    expect([result.rows, result.recovered]).toEqual([rows, false]);
  });

  it('is off without dedupe: every flush adds a row', () => {
    const rows: MessageRow[] = [prompt, { role: 'assistant', content: 'Checking GitHub first.' }];
    const result = rerun([ev(1, 'token', { text: 'Checking GitHub first.' })], rows, { dedupeExisting: false });
    expect(result.rows).toEqual([...rows, fresh('Checking GitHub first.', 1)]);
  });
});
