import type { MessageRow } from '../messages/message-row.js';
import { materialiseJournal } from './journal-output.materialiser.js';
import { type MaterialiseJournalInput } from './journal.types.js';
import { journalEvents, journalMaterialiser } from '../testing/journal-events.builder.js';

const RUN = 'run-1';
const ev = journalEvents(1000.75);
const recovered = (content: string, timestamp: number, extra: Partial<MessageRow> = {}): MessageRow => ({
  role: 'assistant',
  content,
  timestamp,
  recoveredFromRunJournal: true,
  recoveredRunId: RUN,
  ...extra,
});
const materialise = journalMaterialiser(RUN, 5000);

describe('materialising a run journal (§3.7)', () => {
  it('joins tokens and the interim sentence after them into one row', () => {
    const result = materialise([
      ev(1, 'token', { text: 'Hel' }),
      ev(2, 'token', { text: 'lo' }),
      ev(3, 'interim_assistant', { text: ' Interim note ' }),
    ]);
    expect(result).toEqual({
      rows: [recovered('Hello\n\nInterim note', 1001)],
      context: [recovered('Hello\n\nInterim note', 1001)],
      toolCards: [],
      recovered: true,
    });
  });

  it('makes one row per interim sentence', () => {
    const result = materialise([
      ev(1, 'interim_assistant', { text: 'First note' }),
      ev(2, 'interim_assistant', { text: 'Second note' }),
    ]);
    expect(result.rows).toEqual([recovered('First note', 1001), recovered('Second note', 1002)]);
  });

  it('does not add a blank line after a token that ends with a space', () => {
    const result = materialise([ev(1, 'token', { text: 'Looking: ' }), ev(2, 'interim_assistant', { text: 'found it' })]);
    expect(result.rows).toEqual([recovered('Looking: found it', 1001)]);
  });

  it('closes the row at an already streamed interim sentence without repeating it', () => {
    const result = materialise([
      ev(1, 'token', { text: 'Hello' }),
      ev(2, 'interim_assistant', { text: 'Hello', already_streamed: true }),
      ev(3, 'token', { text: 'More' }),
    ]);
    expect(result.rows).toEqual([recovered('Hello', 1001), recovered('More', 1003)]);
  });

  it('keeps reasoning on the display row only', () => {
    const result = materialise([ev(1, 'reasoning', { text: 'Weighing options. ' }), ev(2, 'token', { text: 'Answer' })]);
    expect([result.rows, result.context]).toEqual([
      [recovered('Answer', 1002, { reasoning: 'Weighing options.' })],
      [recovered('Answer', 1002)],
    ]);
  });

  it('shows reasoning-only output without giving it to the model', () => {
    const result = materialise([ev(1, 'reasoning', { thinking: 'Planning' }), ev(2, 'cancel')]);
    expect([result.rows, result.context, result.recovered]).toEqual([
      [recovered('', 1001, { reasoning: 'Planning' })],
      [],
      true,
    ]);
  });

  it('seeds an empty context from the display rows before mirroring', () => {
    const rows: MessageRow[] = [
      { role: 'user', content: 'q', timestamp: 10 },
      { role: 'assistant', content: 'a', timestamp: 11, reasoning: 'r' },
      { role: 'assistant', content: 'marker', error: true },
    ];
    const result = materialise([ev(1, 'token', { text: 'new' })], { rows });
    expect(result.context).toEqual([rows[0], { role: 'assistant', content: 'a', timestamp: 11 }, recovered('new', 1001)]);
  });

  it('appends to a context that already has rows', () => {
    const context: MessageRow[] = [{ role: 'user', content: 'only q' }];
    const result = materialise([ev(1, 'token', { text: 'new' })], { rows: [{ role: 'user', content: 'q' }], context });
    expect(result.context).toEqual([...context, recovered('new', 1001)]);
  });

  it('stamps rows with the fallback time when an event has none', () => {
    const result = materialise([{ seq: 1, event: 'token', payload: { text: 'x' }, createdAt: 0 }]);
    expect(result.rows).toEqual([recovered('x', 5000)]);
  });

  it('recovers nothing from a journal without output', () => {
    const rows: MessageRow[] = [{ role: 'user', content: 'q' }];
    const result = materialise([ev(1, 'token', { text: '  ' }), ev(2, 'metering', { text: 'x' }), ev(3, 'done')], { rows });
    expect(result).toEqual({ rows, context: [], toolCards: [], recovered: false });
  });

  it('reads events in seq order whatever the delivery order and repetition', () => {
    const events = [ev(1, 'token', { text: 'A' }), ev(2, 'interim_assistant', { text: 'B' }), ev(3, 'token', { text: 'C' })];
    const shuffled = [events[2], events[0], events[2], events[1], ev(1, 'token', { text: 'late copy' })];
    expect(materialise(shuffled)).toEqual(materialise(events));
    expect(materialise(events).rows).toEqual([recovered('A\n\nB', 1001), recovered('C', 1003)]);
  });

  it('leaves its inputs untouched', () => {
    const input: MaterialiseJournalInput = Object.freeze({
      runId: RUN,
      events: Object.freeze([ev(1, 'token', { text: 'x' }), ev(2, 'tool', { name: 'terminal' })]),
      rows: Object.freeze([Object.freeze<MessageRow>({ role: 'user', content: 'q' })]),
      context: Object.freeze([]),
      toolCards: Object.freeze([]),
      dedupeExisting: true,
      fallbackTimestamp: 1,
    });
    const before = JSON.stringify(input);
    const result = materialiseJournal(input);
    expect([JSON.stringify(input), result.rows.length]).toEqual([before, 2]);
  });
});
